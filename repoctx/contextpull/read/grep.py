"""`contextpull/read/grep` — seed 000 grep: literal substring scan, or bounded regex.

Reads only. Literal mode is ``instr(lower(text), lower(pattern)) > 0`` over every section
under the path filter (no word index: ``TX-45`` must match inside ``TX-4501``), with
SQLite's ASCII-only case folding. Regex mode checks the pattern's size (``pattern``), then
runs the ``regex`` package, case-insensitive, over the same candidates, each section bounded
by a timeout; an overrun is a tool error. The whole call is bounded by
:data:`GREP_CALL_SECONDS` (or the caller's earlier deadline, ``repoctx.deadline``).
One match per section (its first matching line), ordered by id, ``truncated`` when more
sections matched than ``limit``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from repoctx import deadline
from repoctx.contextpull import sql
from repoctx.contextpull.read.pattern import compile_pattern
from repoctx.contextpull.tokens import ascii_lower
from repoctx.errors import ToolError

PATTERN_MAX_CHARS = 200
REGEX_SECTION_TIMEOUT_S = 0.25
GREP_CALL_SECONDS = 5.0
"""Longest a whole grep call may run, whatever the caller's own deadline."""


def line_at(text: str, offset: int) -> str:
    """The whole line of ``text`` containing character ``offset``."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return text[start : end if end >= 0 else len(text)]


def literal_line(text: str, pattern: str) -> str:
    """The line where ``pattern`` first occurs, matched with ASCII case folding."""
    offset = ascii_lower(text).find(ascii_lower(pattern))
    return line_at(text, max(offset, 0))


def _match(row: tuple, line: str) -> dict[str, Any]:
    section_id, doc, heading_path, _text = row
    return {"id": section_id, "doc": doc, "heading_path": heading_path, "line": line}


def _literal(
    conn: sqlite3.Connection, pattern: str, in_: Sequence[str] | None, limit: int
) -> tuple[list[dict[str, Any]], bool]:
    filter_sql, params = sql.path_filter_clause(in_)
    statement = sql.grep_sql(filter_sql, literal=True)
    rows = conn.execute(statement, (pattern, *params, limit + 1)).fetchall()
    return [_match(row, literal_line(row[3], pattern)) for row in rows[:limit]], len(rows) > limit


def _regex(
    conn: sqlite3.Connection, pattern: str, in_: Sequence[str] | None, limit: int
) -> tuple[list[dict[str, Any]], bool]:
    compiled = compile_pattern(pattern)
    filter_sql, params = sql.path_filter_clause(in_)
    matches: list[dict[str, Any]] = []
    for row in conn.execute(sql.grep_sql(filter_sql, literal=False), params):
        deadline.check()
        try:  # concurrent: the GIL is released while matching, other calls go on
            found = compiled.search(row[3], concurrent=True,
                                    timeout=deadline.remaining(REGEX_SECTION_TIMEOUT_S))
        except TimeoutError as exc:
            deadline.raise_if_due(exc)
            raise ToolError(
                f"pattern: the regular expression ran over {REGEX_SECTION_TIMEOUT_S}s on"
                f" section {row[0]}; simplify it or use literal mode"
            ) from exc
        if found is None:
            continue
        if len(matches) == limit:
            return matches, True
        matches.append(_match(row, line_at(row[3], found.start())))
    return matches, False


def grep(
    conn: sqlite3.Connection, pattern: str, in_: Sequence[str] | None, use_regex: bool,
    limit: int,
) -> dict[str, Any]:  # fmt: skip
    """The grep result: ``matches`` and ``truncated``."""
    if not pattern:
        raise ToolError("pattern: must not be empty")
    if len(pattern) > PATTERN_MAX_CHARS:
        raise ToolError(f"pattern: at most {PATTERN_MAX_CHARS} characters ({len(pattern)} given)")
    scan = _regex if use_regex else _literal
    with deadline.bounded(GREP_CALL_SECONDS, "grep"):
        matches, truncated = scan(conn, pattern, in_, limit)
    return {"matches": matches, "truncated": truncated}
