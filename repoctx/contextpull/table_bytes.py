"""`contextpull/table_bytes` — what a ContextPull store file spends on disk, per table.

Read-only. SQLite's ``dbstat`` virtual table (when the binding has it compiled in) gives
the bytes of every table and index, FTS5 shadow tables included (``sections_fts_data``,
``sections_fts_content``, …); free pages are listed as ``(free pages)``, and the pages
``dbstat`` does not list (the pointer maps of an ``auto_vacuum`` file) as ``(pointer
maps)``. Without ``dbstat`` the file's pages are reported as one ``(all tables)`` row.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from repoctx.contextpull.connection import connect_read_only
from repoctx.contextpull.sqlite_errors import translating_sqlite_errors

FREE, ALL, POINTER_MAPS = "(free pages)", "(all tables)", "(pointer maps)"

_PER_TABLE = "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC, 1"


def table_bytes(path: Path) -> list[tuple[str, int]]:
    """``(table or index, bytes)`` of the store at ``path``, largest first."""
    conn = connect_read_only(path)
    try:
        with translating_sqlite_errors(f"reading {path}"):
            (page_size,) = conn.execute("PRAGMA page_size").fetchone()
            (free,) = conn.execute("PRAGMA freelist_count").fetchone()
            (pages,) = conn.execute("PRAGMA page_count").fetchone()
            try:
                rows = [(str(name), int(size)) for name, size in conn.execute(_PER_TABLE)]
            except sqlite3.OperationalError:  # no dbstat in this SQLite: the file as one
                rows = [(ALL, (pages - free) * page_size)]
    finally:
        conn.close()
    unlisted = (pages - free) * page_size - sum(size for _, size in rows)
    return rows + ([(FREE, free * page_size)] if free else []) + (
        [(POINTER_MAPS, unlisted)] if unlisted > 0 else [])
