"""retrieval/section_symbols — the Python symbols an exported code section declares.

Pure; no I/O. The export's side table names one symbol per code section (the definition
the section was cut for, ``Class.method``, relative to the module). A small class stays
one section, so its methods have no row of their own; this module finds them (and
module-level variables) in the section text by their ``def`` / ``class`` / assignment
lines, nesting by indentation, so the search index knows every name without reading
the store. Function-local definitions are skipped, as the store's extractor does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from repoctx.extract import module_name

CLASS, FUNCTION, METHOD, VARIABLE = "class", "function", "method", "variable"
_DEF = re.compile(r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_]\w*)")
MIN_FRAGMENT_CHARS = 40  # the writer's glue threshold (contextpull merge)
_ASSIGN = re.compile(r"^([A-Za-z_]\w*)[ \t]*(?::[^=\n]+)?=(?!=)")


@dataclass(frozen=True)
class FoundSymbol:
    """One declaration found in a section: qualified name, kind and 1-based line span."""

    qualname: str
    kind: str
    start_line: int
    end_line: int


def fq_name(path: str, qualname: str) -> str:
    """The fully-qualified name of ``qualname`` declared in the file ``path``."""
    module = module_name(path)
    return f"{module}.{qualname}" if module else qualname


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


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _end_of_block(lines: list[str], index: int, indent: int) -> int:
    """Index of the last line of the block opened at ``index`` (0-based)."""
    last = index
    for j in range(index + 1, len(lines)):
        line = lines[j]
        if not line.strip():
            continue
        if _indent(line) <= indent and not line.lstrip().startswith((")", "]", "}")):
            break
        last = j
    return last


def _kind(keyword: str, parent_kind: str | None) -> str:
    if keyword == "class":
        return CLASS
    return METHOD if parent_kind == CLASS else FUNCTION


def section_symbols(text: str, start_line: int, symbol: str | None,
                    end_line: int | None = None) -> list[FoundSymbol]:
    """The declarations in one code section spanning ``start_line``..``end_line``.

    ``symbol`` is the export's symbol of the section (``Outer.method``) or None; a
    section continuing a split definition (no ``def`` line of its own) yields it alone.
    """
    lines = text.split("\n")
    numbers = line_numbers(text, start_line, end_line)
    base = symbol.rsplit(".", 1)[0] if symbol and "." in symbol else ""
    stack: list[tuple[int, str, str]] = []  # (indent, qualname, kind)
    found: list[FoundSymbol] = []
    for index, line in enumerate(lines):
        match = _DEF.match(line)
        if match is None:
            if line[:1].isalpha() or line[:1] == "_":
                stack.clear()  # a statement at column 0: back at module level
            assign = None if stack else _ASSIGN.match(line)
            if assign is not None:
                found.append(FoundSymbol(assign.group(1), VARIABLE, numbers[index],
                                         numbers[_end_of_block(lines, index, 0)]))
            continue
        indent, keyword, name = len(match.group(1)), match.group(2), match.group(3)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if stack and stack[-1][2] != CLASS:
            continue  # a function-local definition
        parent = stack[-1][1] if stack else base
        qualname = f"{parent}.{name}" if parent else name
        kind = _kind(keyword, stack[-1][2] if stack else (CLASS if base else None))
        end = numbers[_end_of_block(lines, index, indent)]
        found.append(FoundSymbol(qualname, kind, numbers[index], end))
        stack.append((indent, qualname, kind))
    if symbol and not any(f.qualname == symbol for f in found):
        found.insert(0, FoundSymbol(symbol, METHOD if base else FUNCTION, numbers[0],
                                    numbers[-1]))
    return found
