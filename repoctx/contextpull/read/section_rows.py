"""`contextpull/read/section_rows` — section rows as tool result items, and table headers.

Reads only. Every item carries ``id``, ``doc`` (the document path) and ``heading_path``.
A table continuation is a ``table`` section whose previous section has the same heading
path and kind; when an older writer stored one without its header row and separator,
the text is returned with the header of the run's first section prepended (never twice).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from repoctx.contextpull import sql

_SEPARATOR = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


@dataclass(frozen=True)
class StoredSection:
    """A ``sections`` row joined with its document path."""

    id: str
    doc: str
    heading_path: str
    kind: str
    text: str
    prev_id: str | None
    next_id: str | None
    doc_id: int
    ordinal: int

    def item(self, text: str | None = None) -> dict[str, Any]:
        """The result item: id, doc, heading_path, kind, text."""
        return {
            "id": self.id,
            "doc": self.doc,
            "heading_path": self.heading_path,
            "kind": self.kind,
            "text": self.text if text is None else text,
        }


def section_by_id(conn: sqlite3.Connection, section_id: str) -> StoredSection | None:
    """The section with primary key ``section_id``, or ``None``."""
    row = conn.execute(sql.SECTION_BY_ID, (section_id,)).fetchone()
    return None if row is None else StoredSection(*row)


def section_by_ordinal(conn: sqlite3.Connection, doc_id: int, ordinal: int) -> StoredSection | None:
    """The section at ``ordinal`` of document ``doc_id``, or ``None``."""
    row = conn.execute(sql.SECTION_BY_ORDINAL, (doc_id, ordinal)).fetchone()
    return None if row is None else StoredSection(*row)


def sections_around(conn: sqlite3.Connection, row: StoredSection, n: int) -> list[StoredSection]:
    """Up to ``n`` sections on each side of ``row`` in its document, in ordinal order."""
    args = (row.doc_id, row.ordinal - n, row.ordinal + n, row.ordinal)
    return [StoredSection(*r) for r in conn.execute(sql.SECTIONS_AROUND, args)]


def _continues(row: StoredSection, prev: StoredSection | None) -> bool:
    return (
        prev is not None
        and row.kind == "table"
        and prev.kind == "table"
        and prev.heading_path == row.heading_path
    )


def run_start(conn: sqlite3.Connection, row: StoredSection) -> StoredSection | None:
    """The first section of the table run ``row`` continues, or ``None`` if it is none."""
    first: StoredSection | None = None
    current = row
    while True:
        prev = section_by_ordinal(conn, current.doc_id, current.ordinal - 1)
        if prev is None or not _continues(row, prev):
            return first
        first = current = prev


def table_header(text: str) -> tuple[str, str] | None:
    """The header row and separator line of the first table in ``text``."""
    lines = text.split("\n")
    for index, line in enumerate(lines[:-1]):
        if line.lstrip().startswith("|") and _SEPARATOR.match(lines[index + 1]):
            return line, lines[index + 1]
    return None


def display_text(conn: sqlite3.Connection, row: StoredSection) -> str:
    """``row.text``, with the run's table header prepended when a continuation lacks it."""
    first = run_start(conn, row)
    header = table_header(first.text) if first is not None else None
    if header is None or row.text.startswith(header[0]):
        return row.text
    return f"{header[0]}\n{header[1]}\n{row.text}"


def display_item(conn: sqlite3.Connection, row: StoredSection) -> dict[str, Any]:
    """The result item of ``row`` with :func:`display_text`."""
    return row.item(display_text(conn, row))
