"""`contextpull/sqlite_errors` — the one translation of sqlite3 exceptions into repoctx errors.

Every sqlite3 call of this package runs inside :func:`translating_sqlite_errors`, which
picks the most specific repoctx error for each sqlite3 exception class (or message) and
chains the original with ``raise … from exc``.
"""

from __future__ import annotations

import platform
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from repoctx import deadline
from repoctx.errors import ContextPullError, DiskFullError, Fts5UnavailableError, NotAStoreError

# sqlite3 exception class -> repoctx error class, most specific first.
SQLITE_ERROR_MAP: tuple[tuple[type[BaseException], type[ContextPullError]], ...] = (
    (sqlite3.NotSupportedError, ContextPullError),
    (sqlite3.IntegrityError, ContextPullError),
    (sqlite3.ProgrammingError, ContextPullError),
    (sqlite3.OperationalError, ContextPullError),
    (sqlite3.InternalError, ContextPullError),
    (sqlite3.DataError, ContextPullError),
    (sqlite3.DatabaseError, ContextPullError),
    (sqlite3.InterfaceError, ContextPullError),
    (sqlite3.Warning, ContextPullError),
    (sqlite3.Error, ContextPullError),
)

_SQLITE_FULL = 13
"""SQLite's ``SQLITE_FULL``: the disk (or the quota) is full."""
_NOT_A_STORE_HINTS = ("file is not a database", "unable to open database", "no such table")


def binding_name() -> str:
    """Name the SQLite binding in use, for refusals about FTS5."""
    return f"Python {platform.python_version()} sqlite3 with SQLite {sqlite3.sqlite_version}"


def translate(exc: BaseException, where: str) -> ContextPullError | DiskFullError:
    """The repoctx error for a sqlite3 exception raised while doing ``where``."""
    message = str(exc)
    lowered = message.lower()
    if getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL or "disk is full" in lowered:
        return DiskFullError(f"{where}: no space left on the disk (free some space and run "
                             "again)")
    if "fts5" in lowered or "sections_fts" in lowered:
        return Fts5UnavailableError(
            f"{where}: full-text search is unavailable ({message}); binding: {binding_name()}"
        )
    if isinstance(exc, sqlite3.DatabaseError) and any(h in lowered for h in _NOT_A_STORE_HINTS):
        return NotAStoreError(f"{where}: not a ContextPull store ({message})")
    for sqlite_class, error_class in SQLITE_ERROR_MAP:
        if isinstance(exc, sqlite_class):
            return error_class(f"{where}: {message}")
    return ContextPullError(f"{where}: {message}")


@contextmanager
def translating_sqlite_errors(where: str) -> Iterator[None]:
    """Run the body, re-raising any sqlite3 exception as a repoctx error about ``where``."""
    try:
        yield
    except (sqlite3.Error, sqlite3.Warning) as exc:
        deadline.raise_if_due(exc)  # interrupted by the progress handler: the call is due
        raise translate(exc, where) from exc
