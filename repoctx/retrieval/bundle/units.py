"""retrieval/bundle/units — the deliverable units of one file at each detail level.

A unit is a piece of a context bundle with a receipt: a whole body (``file``), a symbol
or line-span body (``slice``), the file's ``outline`` (signatures with line spans) or
its bare ``path``. Bodies are read from disk only while the file is fresh (same size
and mtime as indexed, and the bytes hash to the node's digest), so a unit's text always
belongs to the ``contentHash`` its receipt names; a stale file has no body units.
Outlines and paths come from the store alone.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from repoctx.reconcile import FileNode
from repoctx.reconcile.nodes import content_record
from repoctx.retrieval.bundle import wire
from repoctx.retrieval.bundle.definition_slices import (
    HEADER,
    NO_TERMS,
    Span,
    TaskTerms,
    import_block,
    rank_definitions,
)
from repoctx.retrieval.bundle.expansion import Target
from repoctx.retrieval.bundle.receipts import FILE, OUTLINE, PATH, SLICE, receipt
from repoctx.retrieval.symbols import declared_in
from repoctx.retrieval.workspace import Workspace
from repoctx.session import possession_claim

EXTRA_FROM, EXTRA_PER, LEAD_EXTRAS = 13_000, 7_000, 4
"""A first file may add one best-scoring definition past its hits per ``EXTRA_PER``
tokens of budget above ``EXTRA_FROM`` (``extra_definitions``), a lead file
``LEAD_EXTRAS`` more at any budget: the likeliest file's slices were a quarter of its
share, and the edit was often the next definition down its ranking."""
ALLOWANCE_FRACTION, ALLOWANCE_MAX = 6, 2500
LEAD_FILES, LEAD_PER, LEAD_FRACTION, LEAD_MAX = 2, 16_000, 3, 9000
"""The plan's first max(2, budget / 16,000) files go whole up to min(budget / 3, 9000)
tokens, and their slices share as much."""
CHARS_PER_TOKEN = 4
"""About how many characters of source a token holds (to weigh spans before counting)."""


@dataclass(frozen=True)
class Unit:
    """One deliverable unit: its kind, its key within the kind, and its JSON form."""

    kind: str
    key: str
    receipt: str
    body: dict[str, Any]
    possession: str | None = None
    """``path@contentHash`` when the unit is a whole body (it creates possession)."""

    @cached_property
    def counted(self) -> wire.Counted:
        """How the body is counted (``wire.counted``): on first use, then kept."""
        return wire.counted(self.body)


@dataclass
class Source:
    """One target's file as the store knows it, with its body read once on demand."""

    ws: Workspace
    target: Target
    node: FileNode
    fresh: bool
    _text: str | None = field(default=None, repr=False)
    _read: bool = field(default=False, repr=False)
    _lines: list[str] | None = field(default=None, repr=False)
    ranked: dict[int, tuple[TaskTerms, tuple[list[Span], list[Span]]]] = field(
        default_factory=dict, repr=False)
    """Per share, the task's terms and the file's definitions ranked for them
    (``rank_definitions``)."""
    place: int | None = None
    """The file's place in the plan, 0 first (None: in no plan)."""
    lean: bool = False
    """A file the task did not ask about (a test, prose, vendored: ``file_class``): its
    entry is its best unit alone (``packing``'s lean level)."""

    @property
    def rank_all(self) -> bool:
        """One of the plan's first ``rank_all_files``: every definition of it competes for
        its slices, not only the ones search hit (``rank_definitions``)."""
        return self.place is not None and self.place < self.ws.tuning.bundle.rank_all_files

    def lead(self, budget: int) -> bool:
        """One of the plan's first files (``lead_files``): it may go whole at a larger
        size, and its slices may take a larger share, so the likeliest files to edit
        arrive with more of their definitions."""
        return self.place is not None and self.place < lead_files(budget)

    @property
    def path(self) -> str:
        """The file's repository-relative path."""
        return self.node.path

    def text(self) -> str | None:
        """The file's body when it is fresh and still hashes to the indexed digest."""
        if not self._read:
            self._read = True
            self._text = _read_fresh(self.ws, self.node) if self.fresh else None
            self.fresh = self._text is not None
        return self._text

    def lines(self) -> list[str] | None:
        """The body's lines with their line ends (split once), or None when stale."""
        if self._lines is None and (text := self.text()) is not None:
            self._lines = text.splitlines(keepends=True)
        return self._lines

    def unit(self, kind: str, key: str = "", **body: Any) -> Unit:
        """A unit of this file with its receipt filled in."""
        rcpt = receipt(self.ws.store.repo_id, self.path, self.node.digest, kind, key)
        whole = possession_claim(self.path, self.node.digest) if kind == FILE else None
        return Unit(kind, key, rcpt, {"kind": kind, **body, "receipt": rcpt}, whole)


def load(ws: Workspace, target: Target) -> Source | None:
    """The source of a target, or None when the store has no live node for its file."""
    node = ws.node(target.path)
    if node is None or not node.digest:
        return None
    return Source(ws, target, node, ws.is_fresh(target.path, node))


def _read_fresh(ws: Workspace, node: FileNode) -> str | None:
    if node.size > content_record.MAX_READ_BYTES:
        return None
    try:
        data = (ws.root / node.path).read_bytes()
    except OSError:
        return None  # gone since the stat: the file degrades like a stale one
    if hashlib.sha256(data).hexdigest() != node.digest:
        return None
    return data.decode("utf-8", errors="replace")


def whole_unit(src: Source) -> Unit | None:
    """The whole body as one unit (None when the file is stale)."""
    lines = src.lines()
    if lines is None:
        return None
    return src.unit(FILE, "", lines=[1, max(1, len(lines))], text=src.text())


def slice_units(src: Source, budget: int,
                words: TaskTerms = NO_TERMS, *, lean: bool = False) -> list[Unit] | None:
    """The relevant bodies: whole definitions (a large class as its header and the
    members matching the task's ``words``), or the whole file when it is cheap.

    None when the file is stale (no body can be sent for its indexed version). With
    ``lean``, only the best definition (or the whole file when it has none).
    """
    lines = src.lines()
    if lines is None:
        return None
    knobs = src.ws.tuning.bundle
    limit = (lead_share(budget) if src.lead(budget)
             else min(budget // knobs.cheap_fraction, knobs.cheap_max))
    cheap = src.node.tokens is not None and src.node.tokens <= limit
    spans = [] if cheap and not lean else _spans(src, lines, words, budget, lean)
    if sum(end - start + 1 for start, end, _ in spans) * 4 >= len(lines) * 3:
        spans = []  # slices covering most of the file cost more than the file itself
    if not spans:
        whole = whole_unit(src)
        return None if whole is None else [whole]
    out = []
    for start, end, symbol in spans:
        body = "".join(lines[start - 1:end])
        if symbol and symbol.endswith(HEADER):
            out.append(src.unit(SLICE, f"{symbol}@L{start}-{end}",
                                symbol=symbol.removesuffix(HEADER), lines=[start, end],
                                text=body))
        elif symbol:
            out.append(src.unit(SLICE, symbol, symbol=symbol, lines=[start, end], text=body))
        else:
            out.append(src.unit(SLICE, f"L{start}-{end}", lines=[start, end], text=body))
    return out


def _spans(src: Source, lines: list[str], terms: TaskTerms, budget: int,
           lean: bool = False) -> list[Span]:
    """The file's best definitions for the task (``rank_definitions``: a large class as
    its header, its members on their own), then the target's line spans, in line order,
    nested ones dropped. Past the first, a span goes in only while the file's share
    (``allowance``) holds it."""
    lead = src.lead(budget)
    share = lead_share(budget) if lead else allowance(budget)
    cached = src.ranked.get(share)
    if cached is None or cached[0] is not terms:  # lean and full slices share one ranking
        cached = src.ranked[share] = (terms, rank_definitions(
            src.ws, src.path, src.node.symbols, src.target.symbols, lines, terms,
            every=src.rank_all, fit=share * CHARS_PER_TOKEN))
    core, extras = cached[1]
    more = extra_definitions(budget) + (LEAD_EXTRAS if lead else 0) if src.rank_all else 0
    ranked = core + extras[:more]
    block = import_block(lines) if src.rank_all and ranked else None
    if block is not None:  # a first file's imports: right after its best definition
        ranked.insert(1 if lead else len(ranked), (*block, None))
    room = src.ws.tuning.bundle.max_slices - len(ranked)
    ranked.extend((a, b, None) for a, b in src.target.spans[:room])
    found = _within(ranked, lines, 0 if lean else share * CHARS_PER_TOKEN)
    found.sort(key=lambda s: (s[0], -s[1]))
    kept: list[Span] = []
    for span in found:
        if not kept or span[1] > kept[-1][1]:  # inside the previous span: already sent
            kept.append(span)
    return kept


def extra_definitions(budget: int) -> int:
    """How many definitions past the search's hits a first file's slices may add (a
    lead file ``LEAD_EXTRAS`` more): none at the smallest budget, one per ``EXTRA_PER``
    tokens above ``EXTRA_FROM``, so a larger budget lets more of the likeliest files in
    before it reaches marginal ones."""
    return max(0, (budget - EXTRA_FROM) // EXTRA_PER)


def lead_files(budget: int) -> int:
    """How many of the plan's first files are lead files: two, or one per ``LEAD_PER``
    tokens of budget when that is more, so a large budget sends the likeliest files
    whole before it reaches marginal ones."""
    return max(LEAD_FILES, budget // LEAD_PER)


def lead_share(budget: int) -> int:
    """Tokens a lead file may take: whole up to this size, and its slices as much."""
    return min(budget // LEAD_FRACTION, LEAD_MAX)


def allowance(budget: int) -> int:
    """Tokens one file's slices may take beyond its best definition: a share of the
    budget, capped so that a larger budget adds files rather than fattening early ones."""
    return min(budget // ALLOWANCE_FRACTION, ALLOWANCE_MAX)


def _within(ranked: list[Span], lines: list[str], chars: int) -> list[Span]:
    """The spans, best first, that fit ``chars`` characters together (the first always:
    a definition is sent whole or not at all)."""
    out: list[Span] = []
    used = 0
    for span in ranked:
        size = sum(len(line) for line in lines[span[0] - 1:span[1]])
        if out and used + size > chars:
            continue
        out.append(span)
        used += size
    return out


def outline_unit(src: Source) -> Unit | None:
    """Every symbol the file declares, with signature and lines (None when there is none)."""
    symbols = [{"fqName": fq, "kind": d.kind, "signature": d.signature,
                "lines": [d.start_line, d.end_line]}
               for fq, d in declared_in(src.ws, src.path, src.node.symbols)]
    return src.unit(OUTLINE, "", symbols=symbols) if symbols else None


def path_unit(src: Source) -> Unit:
    """The bare path, for an agent to open when it needs to."""
    return src.unit(PATH)
