"""`contextpull/writer` — write a ContextPull store (the export) from documents.

The file is built under a temporary name beside ``out`` and renamed into place, so a
reader holding the old file keeps a consistent view and ``meta`` never changes inside a
file. Documents whose SHA-256 did not change are copied from the previous export. The
result is in rollback-journal mode, so read-only opens create no side files.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from repoctx.contextpull import sql
from repoctx.contextpull.connection import connect_new
from repoctx.contextpull.documents import SourceDocument
from repoctx.contextpull.index_text import DEFAULT_INDEX_BUDGET, IndexEntry, build_index
from repoctx.contextpull.previous import PreviousExport
from repoctx.contextpull.records import DocumentRows, prepare, sha256_hex
from repoctx.contextpull.schema import SCHEMA_VERSION, SECTION_MAX_CHARS, schema_statements
from repoctx.contextpull.sqlite_errors import translating_sqlite_errors
from repoctx.contextpull.summary import SUMMARIZER
from repoctx.contextpull.tokens import normalise_fts_text
from repoctx.errors import ContextPullError

WRITER_NAME = "repoctx"


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote."""

    path: Path
    documents: int
    sections: int
    reused: int
    sectioned: int
    corpus_fingerprint: str
    index_mode: str
    index_tokens: int


def corpus_fingerprint(pairs: Iterable[tuple[str, str]]) -> str:
    """First 16 hex digits of SHA-256 over ``path \\0 sha256 \\0`` per document, in order."""
    digest = hashlib.sha256()
    for path, sha in pairs:
        digest.update(f"{path}\0{sha}\0".encode())
    return digest.hexdigest()[:16]


def normalise_path(path: str) -> str:
    """A document path as stored: POSIX, relative, no leading ``./``; refuses escapes."""
    posix = path.replace("\\", "/")
    while posix.startswith("./"):
        posix = posix[2:]
    parts = posix.split("/")
    if not posix or posix.startswith("/") or ".." in parts or "" in parts:
        raise ContextPullError(f"document path {path!r} is not a relative POSIX path")
    return posix


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _ordered(documents: Iterable[SourceDocument]) -> list[SourceDocument]:
    docs = [replace(d, path=normalise_path(d.path)) for d in documents]
    docs.sort(key=lambda d: d.path.encode("utf-8"))
    for first, second in zip(docs, docs[1:], strict=False):
        if first.path == second.path:
            raise ContextPullError(f"document path {first.path!r} given twice")
    return docs


def _insert_document(conn: sqlite3.Connection, doc_id: int, rows: DocumentRows) -> None:
    n = len(rows.sections)
    conn.execute(
        sql.INSERT_DOCUMENT,
        (doc_id, rows.path, rows.title, rows.summary, rows.summary_src, rows.sha256,
         rows.size, rows.kind, n, rows.ingested_at),
    )  # fmt: skip
    conn.execute(sql.INSERT_REPOCTX_DOCUMENT, (doc_id, rows.language, rows.tokens))
    ids = [f"{rows.path}#{ordinal}" for ordinal in range(n)]
    for ordinal, section in enumerate(rows.sections):
        prev_id = ids[ordinal - 1] if ordinal > 0 else None
        next_id = ids[ordinal + 1] if ordinal + 1 < n else None
        text = section.text
        conn.execute(
            sql.INSERT_SECTION,
            (ids[ordinal], doc_id, ordinal, section.heading_path, section.level, section.kind,
             text, len(text), sha256_hex(text.encode("utf-8")), prev_id, next_id),
        )  # fmt: skip
        conn.execute(
            sql.INSERT_FTS,
            (ids[ordinal], normalise_fts_text(section.heading_path), normalise_fts_text(text)),
        )
        conn.execute(
            sql.INSERT_REPOCTX_SECTION,
            (ids[ordinal], section.start_line, section.end_line, section.tokens, section.symbol),
        )
    for e in rows.embeddings:
        conn.execute(sql.INSERT_EMBEDDING, (e.section_id, e.model, e.dim, e.vec))


def _insert_meta(conn: sqlite3.Connection, meta: dict[str, str]) -> None:
    conn.executemany(sql.INSERT_META, sorted(meta.items()))
    conn.execute(sql.INSERT_REPOCTX_META, ("writer", WRITER_NAME))


def _collect(
    documents: Iterable[SourceDocument], previous: Path | None, max_chars: int, now: str
) -> list[DocumentRows]:
    out: list[DocumentRows] = []
    with PreviousExport(previous, max_chars) as old:
        for document in _ordered(documents):
            reused = old.reusable(document.path, sha256_hex(document.data))
            if reused is not None:
                out.append(replace(reused, size=len(document.data)))
            else:
                out.append(prepare(document, max_chars, now))
    return out


def _write_file(tmp: Path, docs: list[DocumentRows], meta: dict[str, str]) -> None:
    conn = connect_new(tmp)
    try:
        with translating_sqlite_errors(f"writing {tmp}"):
            for statement in schema_statements():
                conn.execute(statement)
            conn.execute("BEGIN")
            for doc_id, rows in enumerate(docs, start=1):
                _insert_document(conn, doc_id, rows)
            _insert_meta(conn, meta)
            conn.execute("COMMIT")
    finally:
        conn.close()


def write_export(
    out: Path,
    documents: Iterable[SourceDocument],
    *,
    corpus_root: str,
    previous: Path | None = None,
    index_budget: int = DEFAULT_INDEX_BUDGET,
    max_chars: int = SECTION_MAX_CHARS,
) -> ExportReport:
    """Write ``documents`` as a ContextPull store at ``out`` (atomically replaced).

    ``previous`` (often ``out`` itself) lends the rows of documents whose SHA-256 did not
    change; ``index_budget`` bounds ``meta.index_text`` in cl100k tokens.
    """
    out = Path(out)
    now = _now()
    docs = _collect(documents, previous, max_chars, now)
    entries = [IndexEntry(d.path, d.title, d.summary, len(d.sections)) for d in docs]
    scope = Path(corpus_root).name or corpus_root
    index = build_index(scope, entries, index_budget)
    fingerprint = corpus_fingerprint((d.path, d.sha256) for d in docs)
    meta = {
        "schema_version": SCHEMA_VERSION,
        "corpus_root": corpus_root,
        "corpus_fingerprint": fingerprint,
        "index_text": index.text,
        "index_tokens": str(index.tokens),
        "index_mode": index.mode,
        "summarizer": SUMMARIZER,
        "section_max_chars": str(max_chars),
        "ingested_at": now,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        _write_file(tmp, docs, meta)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    reused = sum(1 for d in docs if d.reused)
    return ExportReport(
        out, len(docs), sum(len(d.sections) for d in docs), reused, len(docs) - reused,
        fingerprint, index.mode, index.tokens,
    )  # fmt: skip
