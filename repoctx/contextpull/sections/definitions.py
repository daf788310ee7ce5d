"""`contextpull/sections/definitions` — code definitions for sectioning, from a file's symbols.

Pure; no I/O. Symbols (stored declarations or freshly extracted ``Symbol``s) are flat,
named by fully-qualified name; sectioning wants top-level classes and functions with
their members as children. Nesting follows the dotted qualified name relative to the
file's module (``pkg.mod.Outer.method`` in ``pkg/mod.py`` is ``method`` inside
``Outer``); variables are not definitions. A definition's span starts at its first
decorator line, so a decorator stays in its definition's section.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from repoctx.contextpull.sections.documents import Definition
from repoctx.extract import (
    CLASS,
    FUNCTION,
    METHOD,
    Symbol,
    language_of,
    qualname_parts,
    separator_of,
)

DEFINITION_KINDS = frozenset({CLASS, FUNCTION, METHOD})


@dataclass(frozen=True)
class SymbolSpan:
    """One declaration of a file: fully-qualified name, kind and 1-based line span."""

    fq_name: str
    kind: str
    start_line: int
    end_line: int


@dataclass
class _Node:
    span: SymbolSpan | None
    children: dict[str, _Node] = field(default_factory=dict)


def spans_of(symbols: Iterable[Symbol]) -> list[SymbolSpan]:
    """The spans of freshly extracted symbols."""
    return [SymbolSpan(s.fq_name, s.kind, s.start_line, s.end_line) for s in symbols]


def _decorated_start(lines: list[str], start: int, marks: tuple[str, ...]) -> int:
    """``start`` moved up over the decorator (attribute) lines right above it (1-based)."""
    while start > 1 and lines[start - 2].lstrip().startswith(marks):
        start -= 1
    return start


def _contains(outer: SymbolSpan, inner: SymbolSpan) -> bool:
    return outer.start_line <= inner.start_line and inner.end_line <= outer.end_line


def _tree(spans: Iterable[SymbolSpan], path: str) -> _Node:
    """Definitions nested by qualified name; a member written apart from its owner (a Go
    method, a Rust ``impl`` item, whose type lies elsewhere or is not declared in the
    file) stays a top-level definition named by its whole qualified name (``Store.Get``)."""
    separator = separator_of(path)
    root = _Node(None)
    placed = [(span, parts) for span in spans if span.kind in DEFINITION_KINDS
              and (parts := qualname_parts(path, span.fq_name))]
    for span, parts in sorted(placed, key=lambda item: len(item[1])):
        node, names = root, list(parts)
        while len(names) > 1:
            owner = node.children.get(names[0])
            if owner is None or owner.span is None or not _contains(owner.span, span):
                names = [separator.join(names)]
                break
            node = owner
            names.pop(0)
        node = node.children.setdefault(names[0], _Node(None))
        node.span = span
    return root


def _definitions(node: _Node, lines: list[str], marks: tuple[str, ...],
                 ) -> tuple[Definition, ...]:
    out: list[Definition] = []
    for name, child in node.children.items():
        inner = _definitions(child, lines, marks)
        if child.span is None:  # a parent that is not a definition (e.g. a variable)
            out.extend(inner)
            continue
        start = _decorated_start(lines, child.span.start_line, marks)
        out.append(Definition(name, child.span.kind, start, child.span.end_line, inner))
    return tuple(sorted(out, key=lambda d: (d.start_line, d.end_line)))


def definitions_from_spans(
    path: str, text: str, spans: Iterable[SymbolSpan]
) -> tuple[Definition, ...]:
    """Top-level definitions of the file ``path`` (decoded ``text``) with nested children."""
    marks = ("@",) if language_of(path) == "python" else ("@", "#[")
    return _definitions(_tree(spans, path), text.split("\n"), marks)
