"""extract/declarations — pieces the Java, C-family, C#, Ruby, PHP and Go modules share.

Where a declaration starts once its annotations/attributes are skipped, its header
from there, imports found by a line pattern, and the path arithmetic of resolvers.
Invariants: pure; no I/O (a resolver reads only through the `Files` it is handed);
never raises on any node or text.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from tree_sitter import Node

from repoctx.extract.grammar import encode, load, parse
from repoctx.extract.language import Files, Import, inside
from repoctx.extract.symbol import Symbol
from repoctx.extract.treewalk import Spec, header_bytes, one_line, symbols

_BLOCK_COMMENT = re.compile(rb"/\*.*?\*/", re.DOTALL)
_LINE_COMMENT = re.compile(rb"//[^\n]*")


def name_row(node: Node, field: str = "name") -> int:
    """The 0-based row of `node`'s name field (its own first row without one)."""
    name = node.child_by_field_name(field)
    return (name if name is not None else node).start_point[0]


def first_row_past(node: Node, skipped: frozenset[str]) -> int:
    """The 0-based row of `node`'s first child whose type is not in `skipped`
    (annotations, attribute lists, comments); the node's own row if there is none."""
    for child in node.children:
        if child.type not in skipped:
            return child.start_point[0]
    return node.start_point[0]


def header_from(source: bytes, start: int, node: Node, ends: tuple[str, ...]) -> str:
    """`node`'s declaration text from byte `start` up to the first of its `ends`
    fields present (else its first line), comments dropped, on one bounded line."""
    raw = header_bytes(node, source, ends, start)
    if b"/" in raw:
        raw = _LINE_COMMENT.sub(b"", _BLOCK_COMMENT.sub(b"", raw))
    return one_line(raw)


def start_past(node: Node, skipped: frozenset[str]) -> int:
    """The start byte of `node`'s first child not in `skipped` (its own start if none);
    inside a `modifiers` child, annotations are skipped too."""
    for child in node.children:
        if child.type in skipped:
            continue
        if child.type == "modifiers":
            for inner in child.children:
                if inner.type not in skipped:
                    return inner.start_byte
            continue
        return child.start_byte
    return node.start_byte


def scan_imports(pattern: re.Pattern[str], text: str, group: int | str = 1,
                 ) -> tuple[Import, ...]:
    """Every match of `pattern` in `text` as an `Import` of its `group`, with its line."""
    found: list[Import] = []
    line, counted = 1, 0
    for match in pattern.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        specifier = match.group(group)
        if specifier:
            found.append(Import(specifier.strip(), line))
    return tuple(found)


def first_in_directory(files: Files, directory: str, suffixes: tuple[str, ...]) -> str | None:
    """The first file (sorted) directly in `directory` whose name ends with `suffixes`."""
    folder = inside(directory) if directory else ""
    if folder is None:
        return None
    names = sorted(name for name in files.listdir(folder) if name.endswith(suffixes))
    return names[0] if names else None


def ancestors(path: str) -> list[str]:
    """The directories holding `path`, nearest first, ending with the root ''."""
    parent = posixpath.dirname(path)
    found = []
    while parent:
        found.append(parent)
        parent = posixpath.dirname(parent)
    found.append("")
    return found


def dotted_suffix_parts(path: str, fq_name: str, separator: str = ".") -> tuple[str, ...]:
    """`fq_name` split on `separator` after the longest prefix spelled by the tail of
    `path`'s directories (`com/x/Foo.java`, `com.x.Foo.run` -> `("Foo", "run")`)."""
    directories = posixpath.dirname(path.replace("\\", "/")).split("/")
    for index in range(len(directories)):
        prefix = separator.join(directories[index:])
        if prefix and fq_name.startswith(prefix + separator):
            return tuple(fq_name[len(prefix) + len(separator):].split(separator))
    return tuple(part for part in fq_name.split(separator) if part)


def first_branches(text: str) -> tuple[str, set[int]]:
    """`text` with every preprocessor conditional reduced to its first branch (the
    directives and the other branches blanked, lines kept), and the 1-based lines
    blanked as other branches."""
    out: list[str] = []
    skipped: set[int] = set()
    stack: list[bool] = []  # per open conditional: inside a later branch
    for number, line in enumerate(text.split("\n"), 1):
        directive = line.lstrip()
        if directive.startswith("#"):
            word = directive[1:].lstrip()
            if word.startswith("if"):
                stack.append(False)
                out.append("")
                continue
            if word.startswith(("elif", "else")) and stack:
                stack[-1] = True
                out.append("")
                continue
            if word.startswith("endif") and stack:
                stack.pop()
                out.append("")
                continue
        if any(stack):
            skipped.add(number)
            out.append("")
        else:
            out.append(line)
    return "\n".join(out), skipped


def with_first_branches(
    spec: Spec, grammar: str, path: str, text: str, found: tuple[Symbol, ...],
    keep: Callable[[Symbol, tuple[Symbol, ...], set[int]], bool] | None = None,
) -> tuple[Symbol, ...]:  # fmt: skip
    """`found` (the definitions of `text`) again when `#if` … `#else` branches break the
    parse (braces or a parameter list opened in both): the definitions of the text with
    each first branch kept (`first_branches`), plus those only the full parse found that
    `keep(symbol, first_branch_symbols, skipped_lines)` accepts (all, without `keep`)."""
    language = load(grammar)
    if language is None or not parse(language, encode(text)).has_error:
        return found
    first, skipped = first_branches(text)
    kept = symbols(spec, path, first)
    seen = {(symbol.name, symbol.start_line) for symbol in kept}
    extra = [symbol for symbol in found if (symbol.name, symbol.start_line) not in seen
             and (keep is None or keep(symbol, kept, skipped))]
    return tuple(sorted((*kept, *extra), key=lambda symbol: symbol.start_line))
