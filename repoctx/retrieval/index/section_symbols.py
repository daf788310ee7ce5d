"""retrieval/index/section_symbols — the Python symbols a document's exported code sections declare.

Pure; no I/O. The symbols are the store's declarations of the file (or, for a file the
store does not hold in these bytes, what the extractor finds in the document's text,
laid back on its lines from the sections): the definition's whole span, never a
section's, an ``@overload`` resolved to its implementation, and nothing from strings
or docstrings. Each is placed in the section holding its ``def`` / ``class`` line.
Function-local definitions are left out (they are no place a reader looks for a name).
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from repoctx.extract import FUNCTION, METHOD, extract, qualify, qualname_parts, separator_of
from repoctx.reconcile import Declaration, declarations_of

MIN_FRAGMENT_CHARS = 40  # the writer's glue threshold (contextpull merge)
_LOCAL_SCOPES = frozenset({FUNCTION, METHOD})


@dataclass(frozen=True)
class FoundSymbol:
    """One declaration of a document: names, kind and 1-based line span."""

    fq: str
    qualname: str
    kind: str
    start_line: int
    end_line: int


@dataclass(frozen=True)
class SectionSpan:
    """What placing symbols needs of a section: its rowid, text and file lines."""

    rowid: int
    text: str
    start_line: int | None
    end_line: int | None


def fq_name(path: str, qualname: str) -> str:
    """The fully-qualified name of ``qualname`` declared in the file ``path`` (joined
    as its language joins names: ``pkg.mod.f``, ``crate::a::f``)."""
    return qualify(path, qualname)


def qualname_of(path: str, fq: str) -> str:
    """``fq`` relative to the module of ``path`` (``fq`` itself when declared elsewhere)."""
    parts = qualname_parts(path, fq)
    return fq if parts is None else separator_of(path).join(parts)


def line_numbers(text: str, start_line: int, end_line: int | None) -> list[int]:
    """The file line of each line of a section's ``text`` (1-based).

    The writer drops blank lines at block edges and joins blocks with one blank line, and
    glues a fragment under ``MIN_FRAGMENT_CHARS`` onto its neighbour; so when the text is
    shorter than its span, the missing blank lines sit at the glue boundary: lines before
    it count from ``start_line``, lines after it from ``end_line`` backwards.
    """
    lines = text.split("\n")
    n = len(lines)
    missing = 0 if end_line is None else end_line - start_line + 1 - n
    if missing <= 0:
        return [start_line + i for i in range(n)]
    boundary = _glue_boundary(text)
    return [start_line + i if i < boundary else end_line - (n - 1 - i)  # type: ignore[operator]
            for i in range(n)]


def _glue_boundary(text: str) -> int:
    """Index of the first line after the glue boundary (a blank line next to a short fragment)."""
    joins = [i for i in range(len(text) - 1) if text.startswith("\n\n", i)]
    head = [i for i in joins if i < MIN_FRAGMENT_CHARS]
    if head:
        return text.count("\n", 0, head[-1]) + 2
    tail = [i for i in joins if len(text) - i - 2 < MIN_FRAGMENT_CHARS]
    if tail:
        return text.count("\n", 0, tail[0]) + 2
    return len(text.split("\n"))  # unknown: count everything from the start


def document_text(sections: Sequence[SectionSpan]) -> str:
    """The document's text rebuilt from its sections, each line on its file line (blank
    lines the writer dropped come back empty), for extracting its symbols afresh."""
    lines: dict[int, str] = {}
    for section in sections:
        if section.start_line is None:
            continue
        numbers = line_numbers(section.text, section.start_line, section.end_line)
        for number, line in zip(numbers, section.text.split("\n"), strict=True):
            lines.setdefault(number, line)
    last = max(lines, default=0)
    return "\n".join(lines.get(n, "") for n in range(1, last + 1))


def extracted(path: str, sections: Sequence[SectionSpan]) -> dict[str, Declaration]:
    """The declarations the extractor finds in the document rebuilt from ``sections``."""
    text = document_text(sections)
    return declarations_of(path, extract(path, text), text)


def document_symbols(path: str, declared: Mapping[str, Declaration]) -> list[FoundSymbol]:
    """The declarations of ``path`` worth indexing, in line order: function-local
    definitions (a name under a function or method of the file) are left out."""
    kinds = {qualname_of(path, fq): d.kind for fq, d in declared.items()}
    separator = separator_of(path)
    found = []
    for fq, decl in declared.items():
        qualname = qualname_of(path, fq)
        parts = qualname.split(separator)
        if any(kinds.get(separator.join(parts[:i])) in _LOCAL_SCOPES
               for i in range(1, len(parts))):
            continue
        found.append(FoundSymbol(fq, qualname, decl.kind, decl.start_line, decl.end_line))
    return sorted(found, key=lambda f: (f.start_line, f.fq))


def place(symbols: Sequence[FoundSymbol], sections: Sequence[SectionSpan],
          ) -> dict[int, list[FoundSymbol]]:
    """Section rowid -> the symbols whose first line it holds (the section starting last
    at or before that line; the first section for a symbol above every section)."""
    spans = sorted((s.start_line, s.rowid) for s in sections if s.start_line is not None)
    if not spans:
        return {}
    starts = [start for start, _ in spans]
    out: dict[int, list[FoundSymbol]] = {}
    for symbol in symbols:
        index = max(0, bisect.bisect_right(starts, symbol.start_line) - 1)
        out.setdefault(spans[index][1], []).append(symbol)
    return out
