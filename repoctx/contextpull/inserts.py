"""`contextpull/inserts` — put documents' rows into an open store, and take them out again.

Runs inside the caller's transaction. Rows are gathered per batch of documents and sent
with ``executemany`` (one statement preparation per table and batch instead of four
``execute`` calls per section). A section and its FTS row get the same explicit rowid,
so :func:`delete_documents` finds a document's FTS rows by rowid without scanning.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field

from repoctx.contextpull import sql
from repoctx.contextpull.records import DocumentRows, sha256_hex
from repoctx.contextpull.tokens import normalise_fts_text

_BATCH_SECTIONS = 4096


@dataclass
class _Batch:
    """Rows waiting for ``executemany``, table by table."""

    documents: list[tuple] = field(default_factory=list)
    side_documents: list[tuple] = field(default_factory=list)
    sections: list[tuple] = field(default_factory=list)
    fts: list[tuple] = field(default_factory=list)
    side_sections: list[tuple] = field(default_factory=list)
    embeddings: list[tuple] = field(default_factory=list)

    def add(self, doc_id: int, rows: DocumentRows, rowid: int) -> int:
        """Queue one document's rows, its sections from ``rowid``; returns the next rowid."""
        n = len(rows.sections)
        self.documents.append(
            (doc_id, rows.path, rows.title, rows.summary, rows.summary_src, rows.sha256,
             rows.size, rows.kind, n, rows.ingested_at)
        )  # fmt: skip
        self.side_documents.append((doc_id, rows.language, rows.tokens))
        ids = [f"{rows.path}#{ordinal}" for ordinal in range(n)]
        for ordinal, section in enumerate(rows.sections):
            text, sid = section.text, ids[ordinal]
            prev_id = ids[ordinal - 1] if ordinal > 0 else None
            next_id = ids[ordinal + 1] if ordinal + 1 < n else None
            self.sections.append(
                (rowid, sid, doc_id, ordinal, section.heading_path, section.level, section.kind,
                 text, len(text), sha256_hex(text.encode("utf-8")), prev_id, next_id)
            )  # fmt: skip
            self.fts.append(
                (rowid, sid, normalise_fts_text(section.heading_path), normalise_fts_text(text))
            )
            self.side_sections.append(
                (sid, section.start_line, section.end_line, section.tokens, section.symbol)
            )
            rowid += 1
        self.embeddings.extend((e.section_id, e.model, e.dim, e.vec) for e in rows.embeddings)
        return rowid

    def flush(self, conn: sqlite3.Connection) -> None:
        """Send every queued row and empty the batch."""
        conn.executemany(sql.INSERT_DOCUMENT, self.documents)
        conn.executemany(sql.INSERT_REPOCTX_DOCUMENT, self.side_documents)
        conn.executemany(sql.INSERT_SECTION, self.sections)
        conn.executemany(sql.INSERT_FTS, self.fts)
        conn.executemany(sql.INSERT_REPOCTX_SECTION, self.side_sections)
        conn.executemany(sql.INSERT_EMBEDDING, self.embeddings)
        for rows in vars(self).values():
            rows.clear()


def insert_documents(
    conn: sqlite3.Connection, documents: Iterable[tuple[int, DocumentRows]], first_rowid: int
) -> int:
    """Insert ``(doc_id, rows)`` pairs, section rowids from ``first_rowid``; returns the next."""
    batch = _Batch()
    rowid = first_rowid
    for doc_id, rows in documents:
        rowid = batch.add(doc_id, rows, rowid)
        if len(batch.sections) >= _BATCH_SECTIONS:
            batch.flush(conn)
    batch.flush(conn)
    return rowid


def delete_documents(conn: sqlite3.Connection, doc_ids: Iterable[int]) -> None:
    """Delete the documents ``doc_ids`` with their sections, FTS, side and embedding rows."""
    conn.execute(sql.CREATE_GONE)
    conn.executemany(sql.INSERT_GONE, ((doc_id,) for doc_id in doc_ids))
    for statement in sql.DELETE_GONE:
        conn.execute(statement)
    conn.execute("DROP TABLE gone")


def renumber_documents(conn: sqlite3.Connection, moves: Iterable[tuple[int, int]]) -> None:
    """Give documents new ids (``(old, new)`` pairs) in every table keyed by ``doc_id``."""
    conn.execute(sql.CREATE_MOVED)
    conn.executemany(sql.INSERT_MOVED, moves)
    for table in ("documents", "repoctx_documents", "sections"):
        for statement in sql.renumber_sql(table):
            conn.execute(statement)
    conn.execute("DROP TABLE moved")


def write_meta(conn: sqlite3.Connection, meta: dict[str, str], ours: dict[str, str]) -> None:
    """Replace every ``meta`` row with ``meta``; set the ``repoctx_meta`` entries ``ours``."""
    conn.execute(sql.DELETE_META)
    conn.executemany(sql.INSERT_META, sorted(meta.items()))
    conn.executemany(sql.INSERT_REPOCTX_META, sorted(ours.items()))
