"""`contextpull/inserts` — put documents' rows into an open store, and take them out again.

Runs inside the caller's transaction. Documents arrive encoded (``contextpull/encoded``:
every row a parameter tuple already); per batch of documents each table gets one
``executemany`` over the chained rows, and the only per-row Python work left here is
appending ``doc_id`` and the rowid (``operator.add`` over tuples, in C). A section and
its FTS row get the same explicit rowid, so :func:`delete_documents` finds a document's
FTS rows by rowid without scanning.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, repeat
from operator import add

from repoctx.contextpull import sql
from repoctx.contextpull.encoded import EncodedDocument
from repoctx.contextpull.extra_rows import ExtraSink

_BATCH_SECTIONS = 4096


@dataclass
class _Batch:
    """Row iterables waiting for ``executemany``, table by table."""

    documents: list[tuple] = field(default_factory=list)
    side_documents: list[tuple] = field(default_factory=list)
    sections: list[Iterator[tuple]] = field(default_factory=list)
    fts: list[Iterator[tuple]] = field(default_factory=list)
    side_sections: list[list[tuple]] = field(default_factory=list)
    embeddings: list[list[tuple]] = field(default_factory=list)
    n_sections: int = 0

    def add(self, doc_id: int, doc: EncodedDocument, rowid: int) -> int:
        """Queue one document's rows, its sections from ``rowid``; returns the next rowid."""
        n = doc.n_sections
        rowids = range(rowid, rowid + n)
        self.documents.append((*doc.document, doc_id))
        self.side_documents.append((*doc.side_document, doc_id))
        self.sections.append(map(add, doc.sections, zip(repeat(doc_id, n), rowids, strict=True)))
        self.fts.append(map(add, doc.fts, zip(rowids)))
        self.side_sections.append(doc.side_sections)
        self.embeddings.append(doc.embeddings)
        self.n_sections += n
        return rowid + n

    def flush(self, conn: sqlite3.Connection) -> None:
        """Send every queued row and empty the batch."""
        conn.executemany(sql.INSERT_DOCUMENT, self.documents)
        conn.executemany(sql.INSERT_REPOCTX_DOCUMENT, self.side_documents)
        conn.executemany(sql.INSERT_SECTION, chain.from_iterable(self.sections))
        conn.executemany(sql.INSERT_FTS, chain.from_iterable(self.fts))
        conn.executemany(sql.INSERT_REPOCTX_SECTION, chain.from_iterable(self.side_sections))
        conn.executemany(sql.INSERT_EMBEDDING, chain.from_iterable(self.embeddings))
        for rows in (self.documents, self.side_documents, self.sections, self.fts,
                     self.side_sections, self.embeddings):  # fmt: skip
            rows.clear()
        self.n_sections = 0


def insert_documents(
    conn: sqlite3.Connection, documents: Iterable[tuple[int, EncodedDocument]], first_rowid: int,
    extra: ExtraSink | None = None,
) -> int:
    """Insert ``(doc_id, document)`` pairs, section rowids from ``first_rowid``; returns the
    next rowid. ``extra`` gets each document's ``EncodedDocument.extra`` with its rowids."""
    batch = _Batch()
    rowid = first_rowid
    for doc_id, doc in documents:
        if extra is not None:
            extra.add(doc.path, rowid, [section[0] for section in doc.sections], doc.extra)
        rowid = batch.add(doc_id, doc, rowid)
        if batch.n_sections >= _BATCH_SECTIONS:
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
    """Replace every ``meta`` row with ``meta`` and every ``repoctx_meta`` row with ``ours``
    (a patched file keeps nothing of the previous writer's: its stats start is not ours)."""
    conn.execute(sql.DELETE_META)
    conn.executemany(sql.INSERT_META, sorted(meta.items()))
    conn.execute(sql.DELETE_REPOCTX_META)
    conn.executemany(sql.INSERT_REPOCTX_META, sorted(ours.items()))
