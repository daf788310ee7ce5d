"""retrieval/bundle/definition_slices — which whole definitions a file's slices carry.

Reads the store only (declarations). A slice is a whole definition, never a window of
matched words: the definition an agent edits arrives entire, with its signature.

Which ones (``rank_definitions``): the search's hits in the file, in their order (a
function nested in a function stands for its enclosing one, which holds it, when that
fits the file's share); a class too long to send whole (``large_class_lines``) as its
header (from its ``class`` line to its first member: bases, docstring, class
attributes; a long docstring past its summary left out, ``docstring_rest``) followed
by its best members, each whole; then the definitions the task names exactly
(``Class.method``, or a compound simple name written as code), wherever they are in
the file. For the plan's first files every definition also competes as an
extra: scored against the task's weighted terms (``TaskTerms``: each word's place and
rarity, ``task_text.term_weights``) in its body (a class in its header: its members
compete alone), more for the parts of its own name, damped for length; the
definitions the first one calls get a share of the file's best score (a fix often
lands one call down, and the first one, a search hit, may hold few of the task's words),
and the methods beside a method search hit a share of its score (a fix often touches
several methods of one class). ``units`` decides how many extras a budget lets in.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate

from repoctx.extract.symbol import CLASS
from repoctx.reconcile import Declaration
from repoctx.retrieval.query import is_compound, split_identifier
from repoctx.retrieval.search.task_text import (
    CALLED,
    DOTTED,
    NO_STATS,
    IndexStats,
    code_terms,
    term_weights,
)
from repoctx.retrieval.symbols import declared_in
from repoctx.retrieval.tuning import BundleTuning
from repoctx.retrieval.workspace import Workspace

Span = tuple[int, int, str | None]

HEADER = "#header"
"""Marks the span of a split class's header (its unit names the class, not all of it)."""
IMPORT_LINES = 40
"""Longest import block sent with a file's definitions (and how far down it may start)."""
IMPORT_GAP = 8
"""Lines without an import that end the block."""
_IMPORTS = ("import ", "from ", "#include", "use ")
_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_CONSTRUCTORS = frozenset({"__init__", "__new__"})
DOC_SUMMARY = 12
"""Lines of a split class's docstring its header keeps; the rest is left out when it is
at least as long (examples and parameter lists would crowd out the member to edit)."""
_DOC_QUOTES = re.compile(r"^\s*[rRuUbB]{0,2}(\"{3}|'{3})")


@dataclass(frozen=True)
class TaskTerms:
    """What a task says, for ranking definitions: weighted words and names."""

    weights: Mapping[str, float] = field(default_factory=dict)
    """Lowercase word or identifier -> how much it tells (place and rarity)."""
    names: frozenset[str] = frozenset()
    """Lowercase simple names the task writes as code (``get_order_by``)."""
    qualified: frozenset[str] = frozenset()
    """Lowercase ``owner.name`` pairs the task writes (``sqlcompiler.get_order_by``)."""
    called: frozenset[str] = frozenset()
    """Lowercase class-like names the task calls (``Permutation([[0, 1]])``): their
    constructors are named too."""

    @cached_property
    def pattern(self) -> re.Pattern[str] | None:
        """One pattern matching any weighted word as a whole identifier (None: no word)."""
        if not self.weights:
            return None
        return re.compile(r"(?<![A-Za-z0-9_])" + _trie(sorted(self.weights))
                          + r"(?![A-Za-z0-9_])")


def _trie(words: list[str]) -> str:
    """A regular expression matching exactly ``words``, written as their prefix tree
    (``get(?:_(?:order|query))?``): a flat alternation of a long task's hundred words
    is tried word by word at every position of every line, two to three times slower."""
    by_first: dict[str, list[str]] = {}
    ends = False
    for word in words:
        if word:
            by_first.setdefault(word[0], []).append(word[1:])
        else:
            ends = True
    if not by_first:
        return ""
    alternatives = [re.escape(first) + _trie(rests) for first, rests in by_first.items()]
    if len(alternatives) == 1 and not ends:
        return alternatives[0]
    return "(?:" + "|".join(alternatives) + ")" + ("?" if ends else "")


NO_TERMS = TaskTerms()
"""A task with no terms: the search's hits keep their order."""


def task_terms(task: str, stats: IndexStats = NO_STATS) -> TaskTerms:
    """The weighted terms and names of ``task``, rarity read from ``stats``."""
    weights: dict[str, float] = {}
    for term, score in term_weights(task, stats).items():
        key = term.lower()
        weights[key] = max(weights.get(key, 0.0), score)
    names = frozenset(n.lower() for n in code_terms(task) if len(n) >= 3)
    qualified = set()
    for dotted in DOTTED.findall(task):
        parts = dotted.lower().split(".")
        qualified.update(f"{a}.{b}" for a, b in zip(parts, parts[1:], strict=False))
    called = frozenset(m.lower() for m in CALLED.findall(task))
    return TaskTerms(weights, names, frozenset(qualified), called)


def with_decorators(lines: list[str], first: int) -> int:
    """The first line of the definition declared at line ``first``: its decorators and
    the comments right above it belong to it."""
    line = first
    while line > 1 and lines[line - 2].strip().startswith(("@", "#")):
        line -= 1
    return line


@dataclass
class _Candidate:
    fq: str
    start: int
    end: int
    key: str | None
    head: int = 0
    """Last line scored: a class is scored on its header (its members compete alone)."""
    score: float = 0.0
    named: int = 0
    gap: tuple[int, int] | None = None
    """Lines a split class's header leaves out (``docstring_rest``)."""

    def pieces(self) -> list[Span]:
        """The candidate's spans: one, or a header's two around its ``gap``."""
        if self.gap is None:
            return [(self.start, self.end, self.key)]
        return [(self.start, self.gap[0] - 1, self.key), (self.gap[1] + 1, self.end, self.key)]


def rank_definitions(ws: Workspace, path: str, symbols: Iterable[str], hits: Iterable[str],
                     lines: list[str], terms: TaskTerms, *, every: bool = True,
                     fit: int | None = None) -> tuple[list[Span], list[Span]]:
    """The file's definitions that bear on the task, best first, as spans (a split
    class's header keyed ``fq + HEADER``). ``hits`` are the search's symbols in the
    file, best first; with no task term matching, they keep their order. Past the hits,
    a definition comes in when the task names it or it scores at least ``close_share``
    of the best; without ``every`` only the hits compete (and the members of a large
    class among them), which spares reading every declaration of a marginal file. A
    function nested in a function stands for itself only when its enclosing one is
    longer than ``fit`` characters."""
    hits = list(hits)
    knobs = ws.tuning.bundle
    if every:
        pool = tuple(symbols)
    else:
        prefixes = tuple(h + "." for h in hits)
        pool = tuple(s for s in symbols if s in hits or s.startswith(prefixes)
                     or any(h.startswith(s + ".") for h in hits))
    decls = dict(declared_in(ws, path, pool))

    def size(fq: str) -> int:
        decl = decls[fq]
        return sum(len(line) for line in lines[decl.start_line - 1:decl.end_line])

    outer = {}
    for fq in decls:
        top = _outermost(fq, decls)
        outer[fq] = top if fit is None or top == fq or size(top) <= fit else fq
    hits = [outer[fq] for fq in hits if fq in decls]
    if not every:  # the hits and the members of hit classes; enclosing ones only map
        prefixes = tuple(h + "." for h in hits)
        decls = {fq: d for fq, d in decls.items() if fq in hits or fq.startswith(prefixes)}
    ordered_hits = list(dict.fromkeys(hits))
    first_member: dict[str, int] = {}  # owner -> the line its first direct member starts
    for fq, decl in decls.items():
        owner = fq.rpartition(".")[0]
        first_member[owner] = min(decl.start_line, first_member.get(owner, decl.start_line))
    found: list[_Candidate] = []
    for fq, decl in decls.items():
        if outer[fq] != fq and outer[fq] in decls:
            continue  # inside a function: its enclosing function holds it
        start = with_decorators(lines, decl.start_line)
        head = decl.end_line
        if decl.kind == CLASS:
            first = first_member.get(fq)
            if first is not None:
                head = max(start, with_decorators(lines, first) - 1)
                if decl.end_line - decl.start_line >= knobs.large_class_lines:
                    found.append(_Candidate(fq, start, head, fq + HEADER, head=head,
                                            gap=docstring_rest(lines, decl.start_line, head)))
                    continue
        found.append(_Candidate(fq, start, decl.end_line, fq, head=head))
    matched = _line_terms(lines, terms, [(c.start, c.head) for c in found])
    for cand in found:
        _score(cand, matched, terms, knobs)
    return _order(found, ordered_hits, lines, knobs)


def _order(found: list[_Candidate], hits: list[str], lines: list[str],
           knobs: BundleTuning) -> tuple[list[Span], list[Span]]:
    """(the core: each hit in its order, a split class's best members right after its
    header, the definitions the task names after the first hit; the extras: the rest
    scoring at least ``close_share`` of the best, best first, the callees of the first
    core definition and the siblings of the first core methods lifted)."""
    by_fq = {c.fq: c for c in found}

    def best_first(cands: Iterable[_Candidate]) -> list[_Candidate]:
        return sorted(cands, key=lambda c: (-c.named, -c.score, c.start))

    core: list[_Candidate] = []
    for fq in hits[:knobs.max_hits]:
        cand = by_fq[fq]
        core.append(cand)
        if cand.key and cand.key.endswith(HEADER):
            members = [c for c in found if _member(c.fq, fq) and (c.score > 0 or c.named)]
            core.extend(c for c in best_first(members)[:knobs.max_members] if c not in core)
    named = [c for c in best_first(found) if c.named and c not in core]
    core[1:1] = named
    if not core:
        core = [c for c in best_first(found)[:1] if c.score > 0]
    rest = [c for c in found if c not in core]
    if core:
        top = core[0]
        best = max(c.score for c in found)  # the caller's own score may be far below it
        called = set(_CALL.findall("".join(lines[top.start - 1:top.end])))
        for cand in rest:
            if cand.fq.rsplit(".", 1)[-1] in called:
                cand.score += best * knobs.callee_share
        owners: dict[str, float] = {}
        for cand in core[:knobs.sibling_of]:
            owner = cand.fq.rpartition(".")[0]
            if owner in by_fq and cand.key == cand.fq:
                owners[owner] = max(owners.get(owner, 0.0), cand.score)
        for cand in rest:
            cand.score += knobs.sibling_share * owners.get(cand.fq.rpartition(".")[0], 0.0)
    floor = knobs.close_share * max((c.score for c in found), default=0.0)
    extras = [c for c in best_first(rest) if c.score >= floor > 0]
    return ([s for c in core for s in c.pieces()], [s for c in extras for s in c.pieces()])


def docstring_rest(lines: list[str], first: int, last: int) -> tuple[int, int] | None:
    """The lines of the docstring of the class declared at line ``first`` (its header
    ending at ``last``) past its first ``DOC_SUMMARY`` lines and before its closing line,
    when they are at least ``DOC_SUMMARY``; else None (no docstring, a short one, or one
    not closed within the header)."""
    number = first
    while number <= last and not lines[number - 1].split("#", 1)[0].rstrip().endswith(":"):
        number += 1  # the class statement may span lines (bases, keywords)
    opening = number + 1
    while opening <= last and not lines[opening - 1].strip():
        opening += 1
    match = _DOC_QUOTES.match(lines[opening - 1]) if opening <= last else None
    if match is None or match.group(1) in lines[opening - 1][match.end():]:
        return None  # no docstring, or one closed on its opening line
    closing = next((n for n in range(opening + 1, last + 1)
                    if match.group(1) in lines[n - 1]), None)
    if closing is None:
        return None
    gap = (opening + DOC_SUMMARY, closing - 1)
    return gap if gap[1] - gap[0] + 1 >= DOC_SUMMARY else None


def _member(fq: str, owner: str) -> bool:
    """True when ``fq`` is declared directly in ``owner`` (``A.b`` in ``A``, not ``A.b.c``)."""
    return fq.startswith(owner + ".") and fq.count(".") == owner.count(".") + 1


def _outermost(fq: str, decls: Mapping[str, Declaration]) -> str:
    """``fq``, or the outermost function of the file that encloses it."""
    out = fq
    parent = fq.rpartition(".")[0]
    while parent:
        decl = decls.get(parent)
        if decl is not None and decl.kind != CLASS:
            out = parent
        parent = parent.rpartition(".")[0]
    return out


def _line_terms(lines: list[str], terms: TaskTerms,
                spans: list[tuple[int, int]]) -> dict[int, frozenset[str]]:
    """Per line number within ``spans``, the task's weighted terms it holds (lines with
    none left out): one scan of those lines for all the terms at once."""
    pattern = terms.pattern
    if pattern is None or not spans:
        return {}
    found: dict[int, set[str]] = {}
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for first, last in merged:
        chunk = lines[first - 1:last]
        text = "".join(chunk).lower()
        starts = list(accumulate((len(line) for line in chunk), initial=0))
        for match in pattern.finditer(text):
            number = first - 1 + bisect_right(starts, match.start())
            found.setdefault(number, set()).add(match.group())
    return {number: frozenset(words) for number, words in found.items()}


def _score(cand: _Candidate, matched: dict[int, frozenset[str]], terms: TaskTerms,
           knobs: BundleTuning) -> None:
    """The candidate's score from the task's terms, and whether the task names it."""
    parts = cand.fq.split(".")
    simple = parts[-1].lower()
    owner = parts[-2].lower() if len(parts) > 1 else ""
    if f"{owner}.{simple}" in terms.qualified:
        cand.named = 2
    elif simple in _CONSTRUCTORS and owner in terms.called:
        cand.named = 1  # the task builds an instance: the constructor is the one it runs
    elif simple in terms.names and simple in terms.weights and is_compound(
            parts[-1].strip("_")) and not parts[-1].startswith("__"):
        cand.named = 1
    body: set[str] = set()
    if len(matched) < cand.head - cand.start:
        for number, found in matched.items():
            if cand.start <= number <= cand.head:
                body |= found
    else:
        for number in range(cand.start, cand.head + 1):
            body |= matched.get(number, frozenset())
    size = cand.head - cand.start + 1
    damp = 1.0 + math.log(max(1.0, size / knobs.size_lines))
    score = sum(terms.weights[t] for t in body) / damp
    name_parts = set(split_identifier(parts[-1])) | {simple}
    score += knobs.name_part_weight * sum(terms.weights.get(p, 0.0) for p in name_parts)
    cand.score = score


def import_block(lines: list[str]) -> tuple[int, int] | None:
    """The lines from the file's first top-level import to its last (``import``,
    ``from … import``, ``#include``, ``use``), when they are at most ``IMPORT_LINES``
    lines and start within the file's first ``IMPORT_LINES`` lines; else None. A fix
    often adds an import; the block also says where the file's names come from."""
    first = last = 0
    depth = 0
    for number, line in enumerate(lines, 1):
        if depth:
            depth += line.count("(") - line.count(")")
            last = number
            continue
        if line.startswith(_IMPORTS):
            first = first or number
            last = number
            depth = max(0, line.count("(") - line.count(")"))
        elif first and number - last > IMPORT_GAP:
            break
        elif not first and number > IMPORT_LINES:
            return None
    if not first or last - first + 1 > IMPORT_LINES:
        return None
    return first, last
