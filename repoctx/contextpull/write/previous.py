"""`contextpull/write/previous` — read a previous export to reuse its unchanged documents.

Reads only (``mode=ro``). A document is reused when its path and SHA-256 match and the
previous file was written with the same major version and section size limit; otherwise
the writer sections it afresh. A previous file that cannot be read is simply not used.
A previous file is *patchable* (the writer may copy it and patch only what changed) when
this writer made it: the same tables, created by the same statements, and FTS rows
sharing their section's rowid (``repoctx_meta.fts_rowids``). Such a file also lends the
token counts behind its index text (``repoctx_meta.index_counts``; ``index_text``) and
the stats its documents were read under, to vouch for unchanged files (``contextpull/write/files``).
Its ``token`` (inode and SQLite's file change counter, read before anything else) lets
an in-place patch check, once it holds the write lock, that the file is still the one
its plan was made from (``contextpull/write/patch``).
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import TracebackType

from repoctx.contextpull import sql
from repoctx.contextpull.connection import connect_read_only
from repoctx.contextpull.schema import (
    FTS_ROWIDS_KEY,
    FTS_ROWIDS_VALUE,
    INDEX_COUNTS_KEY,
    STATS_SINCE_KEY,
    SUPPORTED_MAJOR,
    WRITER_KEY,
    WRITER_NAME,
    schema_statements,
)
from repoctx.contextpull.sections.documents import Section
from repoctx.contextpull.write.files import RACY_NS, UnreadFile
from repoctx.contextpull.write.records import DocumentRows, EmbeddingRow
from repoctx.errors import ContextPullError

_SHA256 = 5  # where ``sql.PREVIOUS_DOCUMENTS`` puts a row's sha256
_CHANGE_COUNTER = 24  # offset of SQLite's 4-byte file change counter in the header

FileToken = tuple[int, int, bytes]
"""``(st_dev, st_ino, change counter)`` of a store file: another inode (a rename) or
another committed transaction (rollback-journal mode bumps the counter) changes it."""


def file_token(path: Path) -> FileToken | None:
    """The token of the store file at ``path`` now, or None when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        return info.st_dev, info.st_ino, os.pread(fd, 4, _CHANGE_COUNTER)
    except OSError:
        return None
    finally:
        os.close(fd)


@dataclass(frozen=True)
class StoredDocument:
    """A ``documents`` row of the previous export, as the index and a patch need it."""

    doc_id: int
    path: str
    sha256: str
    title: str
    summary: str | None
    n_sections: int


@lru_cache(maxsize=1)
def expected_tables() -> tuple[tuple[str, str], ...]:
    """``(name, sql)`` of every table a fresh store holds, FTS5 shadow tables included."""
    conn = sqlite3.connect(":memory:")
    try:
        for statement in schema_statements():
            conn.execute(statement)
        return tuple(conn.execute(sql.TABLE_SQL).fetchall())
    finally:
        conn.close()


class PreviousExport:
    """Lookup of reusable documents in a previous export (a context manager)."""

    def __init__(self, path: Path | None, max_chars: int) -> None:
        self._conn: sqlite3.Connection | None = None
        self._documents: dict[str, tuple] = {}
        self.path: Path | None = None
        self.token: FileToken | None = None
        self.patchable = False
        self.index_counts: dict[str, int] = {}  # text digest -> tokens (``TokenMemo``)
        self._stats: dict[str, tuple[int, int]] = {}  # path -> recorded (bytes, mtime_ns)
        self._trusted_before = 0  # recorded mtimes below this are trusted
        if path is None or not Path(path).is_file():
            return
        try:
            self._open(Path(path), max_chars)
        except (ContextPullError, sqlite3.Error):
            # Fail open on purpose: a damaged previous export only costs re-sectioning.
            self.close()

    def _open(self, path: Path, max_chars: int) -> None:
        conn = connect_read_only(path)  # rolls back what a killed patch left
        self._conn = conn
        self.token = file_token(path)  # before the reads: a change after it is caught
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        version = str(meta.get("schema_version", ""))
        if version.split(".")[0] != str(SUPPORTED_MAJOR):
            raise ContextPullError(f"previous export has schema {version}")
        if meta.get("section_max_chars") != str(max_chars):
            raise ContextPullError("previous export used another section size")
        self._documents = {row[1]: row for row in conn.execute(sql.PREVIOUS_DOCUMENTS)}
        self._has_side_tables = bool(
            conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'repoctx_sections'").fetchone()
        )
        self.path = path
        ours = self._ours(conn)
        self.patchable = ours.get(WRITER_KEY) == WRITER_NAME and (
            ours.get(FTS_ROWIDS_KEY) == FTS_ROWIDS_VALUE
        )
        if self.patchable:
            self.index_counts = _index_counts(ours.get(INDEX_COUNTS_KEY))
            since = ours.get(STATS_SINCE_KEY, "")
            if since.isdigit():  # an older writer's file has none: nothing is vouched for
                self._trusted_before = int(since) - RACY_NS
                self._stats = {p: (b, m) for p, b, m in conn.execute(sql.PREVIOUS_STATS)}

    def _ours(self, conn: sqlite3.Connection) -> dict[str, str]:
        """``repoctx_meta`` when the file has exactly this writer's tables, else empty."""
        if tuple(conn.execute(sql.TABLE_SQL).fetchall()) != expected_tables():
            return {}
        return dict(conn.execute(sql.REPOCTX_META).fetchall())

    def vouch(self, file: UnreadFile) -> str | None:
        """The stored SHA-256 of ``file`` when its stat is the one recorded and that is
        old enough to trust, else ``None`` (the file must be read)."""
        if self._stats.get(file.path) != (file.size, file.mtime_ns):
            return None
        if file.mtime_ns >= self._trusted_before:
            return None  # racy: written too close to when it was read
        return self._documents[file.path][_SHA256]

    def recorded_mtime(self, path: str) -> int | None:
        """The mtime recorded for ``path`` (``None`` when none is, or none is trusted)."""
        recorded = self._stats.get(path)
        return None if recorded is None else recorded[1]

    def stored(self, path: str) -> StoredDocument | None:
        """The previous ``documents`` row of ``path``, or ``None``."""
        row = self._documents.get(path)
        if row is None:
            return None
        doc_id, path, title, summary, _src, sha256, _kind, _at, n_sections = row
        return StoredDocument(doc_id, path, sha256, title, summary, n_sections)

    def stored_documents(self) -> list[StoredDocument]:
        """Every previous ``documents`` row, in ``doc_id`` order."""
        found = (self.stored(path) for path in self._documents)
        return sorted((d for d in found if d is not None), key=lambda d: d.doc_id)

    def reusable(self, path: str, sha256: str) -> DocumentRows | None:
        """The previous rows of ``path`` when its content is unchanged, else ``None``."""
        row = self._documents.get(path)
        if row is None or row[_SHA256] != sha256 or self._conn is None:
            return None
        try:
            return self._rows(row)
        except sqlite3.Error:
            return None  # fail open: re-section this document instead

    def _rows(self, row: tuple) -> DocumentRows:
        assert self._conn is not None
        doc_id, path, title, summary, summary_src, sha256, kind, ingested_at, _n = row
        extras: dict[str, tuple] = {}
        language = tokens = None
        if self._has_side_tables:
            rows = self._conn.execute(sql.PREVIOUS_REPOCTX_SECTIONS, (doc_id,))
            extras = {r[0]: r[1:] for r in rows}
            side = self._conn.execute(sql.PREVIOUS_REPOCTX_DOCUMENT, (doc_id,)).fetchone()
            language, tokens = side if side else (None, None)
        sections = tuple(
            Section(heading, level, skind, text, *extras.get(f"{path}#{ordinal}", ()))
            for ordinal, heading, level, skind, text in self._conn.execute(
                sql.PREVIOUS_SECTIONS, (doc_id,)
            )
        )
        embeddings = tuple(
            EmbeddingRow(*e) for e in self._conn.execute(sql.PREVIOUS_EMBEDDINGS, (doc_id,))
        )
        return DocumentRows(  # size is set by the writer from the current bytes
            path, sha256, 0, title, summary, summary_src, kind, ingested_at,
            sections, language, tokens, embeddings, reused=True,
        )  # fmt: skip

    def close(self) -> None:
        """Close the previous file."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> PreviousExport:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:  # fmt: skip
        self.close()


def _index_counts(value: str | None) -> dict[str, int]:
    """The stored index token counts; empty when missing or malformed (they only save
    counting, so a malformed entry costs a recount, never an error)."""
    try:
        counts = json.loads(value or "{}")
    except ValueError:
        return {}
    if not isinstance(counts, dict):
        return {}
    return {k: v for k, v in counts.items() if isinstance(k, str) and type(v) is int}
