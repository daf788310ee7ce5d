"""`contextpull/write/inserts` — put documents' rows into an open store, and take them out again.

Runs inside the caller's transaction. Documents arrive encoded (``contextpull/write/encoded``:
every row a parameter tuple already); per batch of documents each table gets one
``executemany`` over the chained rows, and the only per-row Python work left here is
appending ``doc_id`` and the rowid (``operator.add`` over tuples, in C). A section and
its FTS row get the same explicit rowid, so :func:`delete_documents` finds a document's
FTS rows by rowid without scanning.

A patch *replaces* a changed document's sections (:func:`replace_sections`): a new
section whose id the old document had takes over that section's rowid, and only the
rows whose values differ are written (a section's FTS row only when its heading or text
changed); the old sections left over are deleted and the rest inserted after the
highest rowid. The rows are then those a fresh insert gives, rowids aside, and search
tables keyed by rowid keep the rows of every unchanged section.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, repeat
from operator import add

from repoctx.contextpull import sql
from repoctx.contextpull.write.encoded import EncodedDocument
from repoctx.contextpull.write.extra_rows import ExtraSink

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
    conn: sqlite3.Connection, documents: Iterable[tuple[int, EncodedDocument]],
    first_rowid: int, replacing: Collection[str] = (), *, extra: ExtraSink | None = None,
) -> int:  # fmt: skip
    """Insert ``(doc_id, document)`` pairs, section rowids from ``first_rowid``; returns the
    next rowid. The documents whose paths are in ``replacing`` take over the sections
    already under their ``doc_id`` (:func:`replace_sections`). ``extra`` gets each
    inserted document's ``EncodedDocument.extra`` with its rowids: a full rewrite's only
    (a patch, ``replacing``, leaves the extra tables to the finalize hook), never both."""
    assert extra is None or not replacing, "a patch leaves the extra tables to the hook"
    batch = _Batch()
    rowid = first_rowid
    for doc_id, doc in documents:
        if doc.path in replacing:
            batch.flush(conn)
            rowid = replace_sections(conn, doc_id, doc, rowid)
            doc = doc._replace(sections=[], fts=[], side_sections=[])
        elif extra is not None:
            extra.add(doc.path, rowid, [section[0] for section in doc.sections], doc.extra)
        rowid = batch.add(doc_id, doc, rowid)
        if batch.n_sections >= _BATCH_SECTIONS:
            batch.flush(conn)
    batch.flush(conn)
    return rowid


def drop_document_rows(conn: sqlite3.Connection, doc_ids: Iterable[int]) -> None:
    """Delete the ``documents`` and ``repoctx_documents`` rows of ``doc_ids`` and the
    embeddings of their sections, leaving the sections for :func:`replace_sections`."""
    ids = [(doc_id,) for doc_id in doc_ids]
    conn.executemany(sql.DELETE_SECTION_EMBEDDINGS, ids)
    conn.executemany(sql.DELETE_REPOCTX_DOCUMENT, ids)
    conn.executemany(sql.DELETE_DOCUMENT, ids)


def replace_sections(conn: sqlite3.Connection, doc_id: int, doc: EncodedDocument,
                     next_rowid: int) -> int:
    """Turn the sections under ``doc_id`` into ``doc``'s: the same ids keep their rowids
    and are rewritten where they differ, the others are deleted or inserted (from
    ``next_rowid``, returned advanced)."""
    old = {row[1]: row for row in conn.execute(sql.SECTIONS_OF_DOCUMENT, (doc_id,))}
    side = dict(_side_rows(conn, list(old)))
    inserts: list[tuple[tuple, tuple, tuple, int]] = []
    for section, fts, side_row in zip(doc.sections, doc.fts, doc.side_sections, strict=True):
        was = old.pop(section[0], None)
        if was is None:
            inserts.append((section, fts, side_row, next_rowid))
            next_rowid += 1
            continue
        rowid = was[0]
        if was[1:] != section:
            conn.execute(sql.UPDATE_SECTION, (*section[1:], rowid))
        if was[3] != section[2] or was[6] != section[5]:  # heading_path, text
            conn.execute(sql.DELETE_FTS_ROW, (rowid,))
            conn.execute(sql.INSERT_FTS, (*fts, rowid))
        if side.get(section[0]) != side_row:
            conn.execute(sql.UPSERT_REPOCTX_SECTION, side_row)
    gone = [(was[0],) for was in old.values()]
    conn.executemany(sql.DELETE_FTS_ROW, gone)
    conn.executemany(sql.DELETE_REPOCTX_SECTION, ((sid,) for sid in old))
    conn.executemany(sql.DELETE_SECTION_ROW, gone)
    conn.executemany(sql.INSERT_SECTION, ((*s, doc_id, r) for s, _, _, r in inserts))
    conn.executemany(sql.INSERT_FTS, ((*f, r) for _, f, _, r in inserts))
    conn.executemany(sql.INSERT_REPOCTX_SECTION, (x for _, _, x, _ in inserts))
    return next_rowid


def _side_rows(conn: sqlite3.Connection, ids: list[str]) -> Iterator[tuple[str, tuple]]:
    """``repoctx_sections`` rows of the section ``ids``, by id."""
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        for row in conn.execute(f"{sql.SIDE_SECTIONS_IN} ({marks})", chunk):
            yield row[0], row


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
