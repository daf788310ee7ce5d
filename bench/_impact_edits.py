"""The edits of ``bench/impact.py``: a stable sample of covered functions, and one edit of
each that keeps the file valid Python.

``inplace`` keeps the function's span: a real token of its own body changes (a number gets
+1, a bool flips, a string gets a character, else ``; pass`` ends a one-line statement).
``insert`` adds a ``pass`` line after the first statement of its body. Either edit is
checked to parse, and to leave the function at its line (and, in place, at its span).
"""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from _impact_truth import body_lines

KINDS = ("function", "method", "nested")
MODES = ("inplace", "insert")
_Def = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Edit:
    """One edit of one sampled function: the file's new bytes and what was done."""

    function: dict[str, Any]
    mode: str
    how: str
    data: bytes


def sample(functions: list[dict[str, Any]], size: int, seed: str) -> list[dict[str, Any]]:
    """Up to ``size`` covered functions, taken in turn from each kind (seeded, stable)."""
    rng = random.Random(seed)
    pools = {k: sorted((f for f in functions if f["tests"] and f["kind"] == k and f["fqName"]),
                       key=lambda f: (f["path"], f["line"])) for k in KINDS}
    for pool in pools.values():
        rng.shuffle(pool)
    picked: list[dict[str, Any]] = []
    while len(picked) < size and any(pools.values()):
        for kind in KINDS:
            if pools[kind] and len(picked) < size:
                picked.append(pools[kind].pop())
    return picked


def _node(text: bytes, line: int) -> _Def | None:
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, _Def) and node.lineno == line:
            return node
    return None


def _own_nodes(node: _Def) -> Iterator[ast.AST]:
    """The nodes of the body that belong to the function itself (not to nested defs),
    the docstring left out."""
    own = body_lines(node)
    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
    for stmt in body:
        for inner in ast.walk(stmt):
            if getattr(inner, "lineno", None) in own:
                yield inner


def _replace(lines: list[bytes], node: ast.expr | ast.stmt, new: bytes) -> list[bytes]:
    row = node.lineno - 1
    line = lines[row]
    return [*lines[:row], line[:node.col_offset] + new + line[node.end_col_offset:],
            *lines[row + 1:]]


def _token_edits(lines: list[bytes], node: _Def) -> Iterator[tuple[str, list[bytes]]]:
    """Candidate in-place edits, the most code-like first."""
    constants = [n for n in _own_nodes(node) if isinstance(n, ast.Constant)
                 and n.lineno == n.end_lineno and not _in_fstring(node, n)]
    for test, how, new in (
            (lambda v: type(v) in (int, float), "number+1", lambda v: repr(v + 1)),
            (lambda v: isinstance(v, bool), "bool flipped", lambda v: repr(not v)),
            (lambda v: isinstance(v, str | bytes), "string+char",
             lambda v: repr(v + ("~" if isinstance(v, str) else b"~")))):
        for const in constants:
            if test(const.value):
                yield how, _replace(lines, const, new(const.value).encode())
    for stmt in _own_nodes(node):
        if (isinstance(stmt, ast.Return | ast.Assign | ast.Expr | ast.AugAssign)
                and stmt.lineno == stmt.end_lineno and stmt.end_col_offset is not None):
            line = lines[stmt.lineno - 1]
            yield "; pass", _replace(lines, stmt,
                                     line[stmt.col_offset:stmt.end_col_offset] + b"; pass")


def _in_fstring(scope: ast.AST, const: ast.Constant) -> bool:
    return any(isinstance(n, ast.JoinedStr) and const in ast.walk(n) for n in ast.walk(scope))


def _insert_edits(lines: list[bytes], node: _Def) -> Iterator[tuple[str, list[bytes]]]:
    first = node.body[0]
    if first.lineno == node.lineno:
        return
    start = lines[first.lineno - 1]
    indent = start[:first.col_offset]
    if indent.strip():
        return
    ending = b"\r\n" if start.endswith(b"\r\n") else b"\n"
    row = first.end_lineno or first.lineno
    yield "pass line", [*lines[:row], indent + b"pass" + ending, *lines[row:]]


def _fits(data: bytes, function: dict[str, Any], mode: str) -> bool:
    try:
        node = _node(data, function["line"])
    except SyntaxError:
        return False
    if node is None:
        return False
    return mode == "insert" or node.end_lineno == function["endLine"]


def make_edit(data: bytes, function: dict[str, Any], mode: str) -> Edit | None:
    """The first candidate edit of ``mode`` that keeps the file valid, None if none."""
    node = _node(data, function["line"])
    if node is None:
        return None
    lines = data.splitlines(keepends=True)
    candidates = _token_edits(lines, node) if mode == "inplace" else _insert_edits(lines, node)
    for how, new_lines in candidates:
        new = b"".join(new_lines)
        if new != data and _fits(new, function, mode):
            return Edit(function, mode, how, new)
    return None
