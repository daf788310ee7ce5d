"""`contextpull/connection` — opening store files: read-only for readers, fresh or in place
for the writer.

A read-only open uses a ``file:…?mode=ro`` URI, ``PRAGMA query_only`` and in-memory temp
storage, so reading never writes the file nor creates side files next to it. A read-only
connection stops a statement once the running call is past its deadline (``deadline``).

An export is patched in place inside one rollback-journal transaction
(``contextpull/write/patch``). A patching process killed mid-transaction leaves a *hot* journal
beside the file, which SQLite rolls back on the next open, but only on an open that may
write: a ``mode=ro`` open fails with ``SQLITE_READONLY_ROLLBACK`` instead. A read-only
open that meets one rolls it back first through a short read-write open (what any SQLite
reader not asking for ``mode=ro`` does by itself), then reads the restored file; where
the file cannot be written the error says to run ``repoctx index``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from repoctx import deadline
from repoctx.contextpull.sqlite_errors import translating_sqlite_errors
from repoctx.errors import ContextPullError

PATCH_BUSY_SECONDS = 10.0
"""How long an in-place patch waits for readers to finish a statement before it commits
(SQLite's busy timeout; a reader holds its lock while a statement runs); past it the
writer patches a copy and renames it into place instead (``contextpull/write/patch``)."""


def read_only_uri(path: Path) -> str:
    """The ``file:`` URI opening ``path`` read-only (special characters escaped)."""
    return Path(path).resolve().as_uri() + "?mode=ro"


def _read_write_uri(path: Path) -> str:
    """``path`` as a read-write URI: it must exist (no new file is created)."""
    return Path(path).resolve().as_uri() + "?mode=rw"


def _open_read_only(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(read_only_uri(path), uri=True, check_same_thread=False)
    conn.execute("PRAGMA query_only = 1")
    conn.execute("PRAGMA temp_store = MEMORY")
    return conn


def _hot_journal(exc: sqlite3.Error) -> bool:
    return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_READONLY_ROLLBACK


def roll_back_hot_journal(path: Path) -> None:
    """Roll back what a killed patch left in ``path`` (a read-write open does it)."""
    try:
        conn = sqlite3.connect(_read_write_uri(path), uri=True)
        try:
            conn.execute("PRAGMA schema_version").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise ContextPullError(
            f"{path} was left mid-write by an interrupted `repoctx index` and cannot be "
            f"restored without write access ({exc}); run `repoctx index` where it can write"
        ) from exc


def connect_read_only(path: Path) -> sqlite3.Connection:
    """Open ``path`` read-only with query_only and in-memory temp storage."""
    with translating_sqlite_errors(f"opening {path}"):
        conn = _open_read_only(path)
        try:
            conn.execute("PRAGMA schema_version").fetchone()  # meets a hot journal, if any
        except sqlite3.OperationalError as exc:
            if not _hot_journal(exc):
                raise
            conn.close()
            roll_back_hot_journal(path)
            conn = _open_read_only(path)
        # a statement of a call past its deadline is interrupted
        conn.set_progress_handler(deadline.interrupt_when_due, deadline.SQLITE_PROGRESS_OPS)
    return conn


def connect_new(path: Path) -> sqlite3.Connection:
    """Create a fresh store file at ``path`` in rollback-journal (``DELETE``) mode."""
    with translating_sqlite_errors(f"creating {path}"):
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA journal_mode = DELETE")
    return conn


def connect_in_place(path: Path) -> sqlite3.Connection:
    """Open the existing store ``path`` to patch it (autocommit: the caller begins and
    commits its one transaction), waiting up to ``PATCH_BUSY_SECONDS`` for readers."""
    with translating_sqlite_errors(f"opening {path} to patch it"):
        conn = sqlite3.connect(_read_write_uri(path), uri=True, isolation_level=None,
                               timeout=PATCH_BUSY_SECONDS)
        conn.execute("PRAGMA temp_store = MEMORY")
    return conn
