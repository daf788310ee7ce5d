"""`contextpull/write/index_text` — the corpus index text stored in ``meta.index_text``.

Pure apart from token counting. Three layouts, tried in order until one fits the token
budget: ``flat`` (one line per document, the same line format as ``index(prefix)``),
``compact`` (path and section count only) and ``hierarchical`` (one line per folder,
as deep as the budget allows, cut with a closing count line if even that is too long).
Every layout starts with the header line ``ContextPull index · …``.

The counts behind the choice are remembered by text digest (:class:`TokenMemo`) and
stored with the export, so a re-export whose candidate texts did not change counts
nothing and, in a fresh process, never loads the tokenizer (loading it is ~30% of a
one-file re-export from a store on Django).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from repoctx.tokenizer import count_tokens

DEFAULT_INDEX_BUDGET = 3000
# A line break followed by a non-space: cl100k's pre-tokeniser never lets a piece straddle
# it, so the tokens of the text before it are a lower bound on the whole text's tokens.
_SAFE_CUT = re.compile(r"\n(?=\S)")
_PROBE_CHARS_PER_TOKEN = 8
_PATH_COLUMN = 30
_DESCRIPTION_MAX_CHARS = 60


@dataclass(frozen=True)
class IndexEntry:
    """One document as the index lists it."""

    path: str
    title: str
    summary: str | None
    n_sections: int


@dataclass(frozen=True)
class IndexText:
    """The chosen index text, its layout, its token count, and every count the choice
    took (text digest -> tokens; see :class:`TokenMemo`)."""

    text: str
    mode: str
    tokens: int
    counts: dict[str, int] = field(default_factory=dict)


class TokenMemo:
    """``count_tokens`` that first looks a text up by its SHA-256 among ``known`` counts
    (a previous build's) and remembers every count it gives in ``used``."""

    def __init__(self, known: Mapping[str, int] | None = None) -> None:
        self.known = dict(known or {})
        self.used: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        """The exact cl100k token count of ``text``: its first line's (the header, which
        holds the corpus's counts, so any edit changes it) plus the rest's, each looked
        up on its own (a safe cut: the counts add up exactly), so a one-file edit
        recounts only the texts whose lines below the header changed."""
        cut = _SAFE_CUT.search(text)
        if cut is None:
            return self._one(text)
        return self._one(text[: cut.start() + 1]) + self._one(text[cut.start() + 1:])

    def _one(self, text: str) -> int:
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        tokens = self.used.get(key, self.known.get(key))
        if tokens is None:
            tokens = count_tokens(text)
        self.used[key] = tokens
        return tokens


Count = Callable[[str], int]


def header_line(scope: str, entries: Sequence[IndexEntry]) -> str:
    """``ContextPull index · <scope> · <n> documents · <m> sections``."""
    sections = sum(entry.n_sections for entry in entries)
    return f"ContextPull index · {scope} · {len(entries)} documents · {sections} sections"


def document_line(entry: IndexEntry) -> str:
    """Seed 000's line: path padded to column 30, summary or title (60 chars), count."""
    description = (entry.summary or entry.title)[:_DESCRIPTION_MAX_CHARS]
    return f"{entry.path:<{_PATH_COLUMN}}  {description}  ({entry.n_sections})"


def flat_text(scope: str, entries: Sequence[IndexEntry]) -> str:
    """Header plus one :func:`document_line` per document."""
    return "\n".join([header_line(scope, entries), *map(document_line, entries)])


def compact_text(scope: str, entries: Sequence[IndexEntry]) -> str:
    """Header plus ``path (n)`` per document."""
    lines = [f"{entry.path} ({entry.n_sections})" for entry in entries]
    return "\n".join([header_line(scope, entries), *lines])


def _folder(parts: list[str], depth: int) -> str:
    kept = parts[:depth]
    return "/".join(kept) + "/" if kept else "./"


def _hierarchical(header: str, folders: Sequence[tuple[list[str], int, int]], depth: int) -> str:
    """The hierarchical text from ``(folder parts, documents, sections)`` per folder."""
    documents: Counter[str] = Counter()
    sections: Counter[str] = Counter()
    for parts, n_documents, n_sections in folders:
        folder = _folder(parts, depth)
        documents[folder] += n_documents
        sections[folder] += n_sections
    lines = [
        f"{folder}  {documents[folder]} documents, {sections[folder]} sections"
        for folder in sorted(documents, key=lambda f: f.encode())
    ]
    return "\n".join([header, *lines])


def _folders(entries: Sequence[IndexEntry]) -> list[tuple[list[str], int, int]]:
    """Per folder holding documents: its parts, documents and sections, gathered once
    for every depth tried (Django: ~900 folders instead of 5,500 documents per depth)."""
    counts: dict[str, list[int]] = {}
    for entry in entries:
        count = counts.setdefault(entry.path.rpartition("/")[0], [0, 0])
        count[0] += 1
        count[1] += entry.n_sections
    return [(folder.split("/") if folder else [], n, m) for folder, (n, m) in counts.items()]


def tokens_within(text: str, budget: int, count: Count = count_tokens) -> int | None:
    """``count(text)`` when it is at most ``budget``, else ``None``.

    A long text is first judged by a prefix cut at a safe line break: when the prefix
    alone is over budget, so is the text, and the (large) rest is never counted.
    """
    probe = budget * _PROBE_CHARS_PER_TOKEN
    if len(text) > probe:
        cut = _SAFE_CUT.search(text, probe)
        if cut is not None and count(text[: cut.start() + 1]) > budget:
            return None
    tokens = count(text)
    return tokens if tokens <= budget else None


def _cut_to_budget(text: str, budget: int, count: Count) -> str:
    """Drop trailing folder lines (counting them in a last line) until ``text`` fits."""
    lines = text.split("\n")
    keep, candidate = len(lines), text
    while keep > 1 and tokens_within(candidate, budget, count) is None:
        keep = max(1, keep * 3 // 4)
        candidate = "\n".join([*lines[:keep], f"… {len(lines) - keep} more folders"])
    return candidate


def build_index(
    scope: str, entries: Sequence[IndexEntry], budget: int, known: Mapping[str, int] | None = None
) -> IndexText:
    """The first layout of flat / compact / hierarchical that fits ``budget`` tokens;
    ``known`` are the ``counts`` of an earlier build (only texts not among them are
    counted)."""
    count = TokenMemo(known)
    layouts = (("flat", flat_text(scope, entries)), ("compact", compact_text(scope, entries)))
    for mode, text in layouts:
        tokens = tokens_within(text, budget, count)
        if tokens is not None:
            return IndexText(text, mode, tokens, count.used)
    depth = max((entry.path.count("/") for entry in entries), default=0)
    header, folders = header_line(scope, entries), _folders(entries)
    text = _hierarchical(header, folders, depth)
    while depth > 1 and tokens_within(text, budget, count) is None:
        depth -= 1
        text = _hierarchical(header, folders, depth)
    text = _cut_to_budget(text, budget, count)
    return IndexText(text, "hierarchical", count(text), count.used)
