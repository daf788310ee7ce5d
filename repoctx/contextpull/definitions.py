"""`contextpull/definitions` — code definitions for sectioning, from a file's symbols.

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

from repoctx.contextpull.documents import Definition
from repoctx.extract import CLASS, FUNCTION, METHOD, Symbol, module_name

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


def _qualname(fq_name: str, module: str) -> str | None:
    if not module:
        return fq_name
    if fq_name.startswith(module + "."):
        return fq_name[len(module) + 1 :]
    return None  # declared under another module name: not this file's nesting


def _decorated_start(lines: list[str], start: int) -> int:
    """``start`` moved up over the decorator lines right above it (1-based)."""
    while start > 1 and lines[start - 2].lstrip().startswith("@"):
        start -= 1
    return start


def _tree(spans: Iterable[SymbolSpan], module: str) -> _Node:
    root = _Node(None)
    for span in sorted(spans, key=lambda s: s.fq_name.count(".")):
        qualname = _qualname(span.fq_name, module)
        if span.kind not in DEFINITION_KINDS or not qualname:
            continue
        node = root
        for part in qualname.split("."):
            node = node.children.setdefault(part, _Node(None))
        node.span = span
    return root


def _definitions(node: _Node, lines: list[str]) -> tuple[Definition, ...]:
    out: list[Definition] = []
    for name, child in node.children.items():
        inner = _definitions(child, lines)
        if child.span is None:  # a parent that is not a definition (e.g. a variable)
            out.extend(inner)
            continue
        start = _decorated_start(lines, child.span.start_line)
        out.append(Definition(name, child.span.kind, start, child.span.end_line, inner))
    return tuple(sorted(out, key=lambda d: (d.start_line, d.end_line)))


def definitions_from_spans(
    path: str, text: str, spans: Iterable[SymbolSpan]
) -> tuple[Definition, ...]:
    """Top-level definitions of the file ``path`` (decoded ``text``) with nested children."""
    return _definitions(_tree(spans, module_name(path)), text.split("\n"))
