"""`contextpull/connection` — opening store files: read-only for readers, fresh for the writer.

A read-only open uses a ``file:…?mode=ro`` URI, ``PRAGMA query_only`` and in-memory temp
storage, so reading never writes the file nor creates side files next to it. A read-only
connection stops a statement once the running call is past its deadline (``deadline``).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from repoctx import deadline
from repoctx.contextpull.sqlite_errors import translating_sqlite_errors


def read_only_uri(path: Path) -> str:
    """The ``file:`` URI opening ``path`` read-only (special characters escaped)."""
    return Path(path).resolve().as_uri() + "?mode=ro"


def connect_read_only(path: Path) -> sqlite3.Connection:
    """Open ``path`` read-only with query_only and in-memory temp storage."""
    with translating_sqlite_errors(f"opening {path}"):
        conn = sqlite3.connect(read_only_uri(path), uri=True, check_same_thread=False)
        conn.execute("PRAGMA query_only = 1")
        conn.execute("PRAGMA temp_store = MEMORY")
        # a statement of a call past its deadline is interrupted (issue 16, finding 1)
        conn.set_progress_handler(deadline.interrupt_when_due, deadline.SQLITE_PROGRESS_OPS)
    return conn


def connect_new(path: Path) -> sqlite3.Connection:
    """Create a fresh store file at ``path`` in rollback-journal (``DELETE``) mode."""
    with translating_sqlite_errors(f"creating {path}"):
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA journal_mode = DELETE")
    return conn
