"""`contextpull/read/opening` — seed 000's opening steps, in order, on a read-only connection.

1. the file exists and opens read-only; 2. ``meta.schema_version`` exists and has the
supported major (else a refusal naming both versions); 3. ``sections_fts`` answers (else
a refusal naming the SQLite binding); 4. the immutable meta values are read once.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from repoctx.contextpull import sql
from repoctx.contextpull.connection import connect_read_only
from repoctx.contextpull.schema import SUPPORTED_MAJOR
from repoctx.contextpull.sqlite_errors import binding_name, translating_sqlite_errors
from repoctx.errors import Fts5UnavailableError, NotAStoreError, SchemaVersionError

IMMUTABLE_META_KEYS = ("index_text", "index_mode", "index_tokens", "corpus_fingerprint")


@dataclass(frozen=True)
class StoreMeta:
    """The meta values a reader reads once: they never change inside a file."""

    schema_version: str
    index_text: str
    index_mode: str
    index_tokens: int
    corpus_fingerprint: str


def _meta_value(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute(sql.META_VALUE, (key,)).fetchone()
    return None if row is None else str(row[0])


def check_version(version: str, path: Path) -> None:
    """Refuse a store whose major version is not the supported one, naming both."""
    major = version.split(".")[0].strip()
    if major != str(SUPPORTED_MAJOR):
        raise SchemaVersionError(
            f"{path}: store schema_version {version} is not readable; this reader supports"
            f" schema major version {SUPPORTED_MAJOR} ({SUPPORTED_MAJOR}.x)"
        )


def _check_fts(conn: sqlite3.Connection, path: Path) -> None:
    try:
        conn.execute(sql.FTS_PROBE).fetchone()
    except sqlite3.Error as exc:
        raise Fts5UnavailableError(
            f"{path}: the FTS5 table sections_fts cannot be queried ({exc});"
            f" SQLite binding: {binding_name()}"
        ) from exc


def open_store(path: Path) -> tuple[sqlite3.Connection, StoreMeta]:
    """Open ``path`` read-only and run the opening checks; the caller owns the connection."""
    if not path.is_file():
        raise NotAStoreError(f"{path}: no such file")
    conn = connect_read_only(path)
    try:
        with translating_sqlite_errors(f"reading {path}"):
            version = _meta_value(conn, "schema_version")
            if version is None:
                raise NotAStoreError(f"{path}: meta has no schema_version; not a ContextPull store")
            check_version(version, path)
            _check_fts(conn, path)
            values = {key: _meta_value(conn, key) or "" for key in IMMUTABLE_META_KEYS}
    except BaseException:
        conn.close()
        raise
    tokens = values["index_tokens"]
    return conn, StoreMeta(
        version, values["index_text"], values["index_mode"],
        int(tokens) if tokens.isdigit() else 0, values["corpus_fingerprint"],
    )  # fmt: skip
