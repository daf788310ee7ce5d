"""`contextpull/writer` — write a ContextPull store (the export) from documents.

The file is built under a temporary name beside ``out`` and renamed into place, so a
reader holding the old file keeps a consistent view and ``meta`` never changes inside a
file. Documents whose SHA-256 did not change are taken from the previous export: when
this writer made it, by copying the file and patching only what changed
(``contextpull/patch``); otherwise by copying their rows into a full rewrite. The
result is in rollback-journal mode, so read-only opens create no side files.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from repoctx.contextpull.connection import connect_new
from repoctx.contextpull.documents import Definition, SourceDocument
from repoctx.contextpull.index_text import DEFAULT_INDEX_BUDGET, IndexEntry, build_index
from repoctx.contextpull.inserts import insert_documents, write_meta
from repoctx.contextpull.patch import PatchPlan, apply_patch, copy_previous, plan_patch
from repoctx.contextpull.previous import PreviousExport
from repoctx.contextpull.records import DocumentRows, prepare, sha256_hex
from repoctx.contextpull.schema import (
    FTS_ROWIDS_KEY,
    FTS_ROWIDS_VALUE,
    SCHEMA_VERSION,
    SECTION_MAX_CHARS,
    WRITER_KEY,
    WRITER_NAME,
    schema_statements,
)
from repoctx.contextpull.sqlite_errors import translating_sqlite_errors
from repoctx.contextpull.summary import SUMMARIZER
from repoctx.errors import ContextPullError

DefinitionsFor = Callable[[str, bytes], "tuple[Definition, ...] | None"]
_OURS = {WRITER_KEY: WRITER_NAME, FTS_ROWIDS_KEY: FTS_ROWIDS_VALUE}
# Build-time page cache (KiB, negative = size): FTS5 merges and the id indexes stay in
# memory while one transaction writes the whole file.
_BUILD_CACHE_KIB = 65536


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote; ``patched`` when it copied and patched the previous file."""

    path: Path
    documents: int
    sections: int
    reused: int
    sectioned: int
    corpus_fingerprint: str
    index_mode: str
    index_tokens: int
    patched: bool = False


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


def _with_path(document: SourceDocument, path: str) -> SourceDocument:
    return document if document.path == path else replace(document, path=path)


def _ordered(documents: Iterable[SourceDocument]) -> list[SourceDocument]:
    docs = [_with_path(d, normalise_path(d.path)) for d in documents]
    docs.sort(key=lambda d: d.path.encode("utf-8"))
    for first, second in zip(docs, docs[1:], strict=False):
        if first.path == second.path:
            raise ContextPullError(f"document path {first.path!r} given twice")
    return docs


@dataclass(frozen=True)
class _Collected:
    """The documents of an export in path order: their index entries and fresh rows."""

    entries: list[IndexEntry]
    shas: list[str]
    fresh: list[tuple[int, DocumentRows]]
    reused: int


def _prepare(
    document: SourceDocument, max_chars: int, now: str, definitions_for: DefinitionsFor | None
) -> DocumentRows:
    if definitions_for is not None and document.definitions is None:
        definitions = definitions_for(document.path, document.data)
        if definitions is not None:
            document = replace(document, definitions=definitions)
    return prepare(document, max_chars, now)


def _collect(
    docs: Sequence[SourceDocument],
    shas: Sequence[str],
    old: PreviousExport,
    plan: PatchPlan | None,
    max_chars: int,
    now: str,
    definitions_for: DefinitionsFor | None,
) -> _Collected:
    """Rows to insert (every document, or only the changed ones under ``plan``)."""
    entries: list[IndexEntry] = []
    fresh: list[tuple[int, DocumentRows]] = []
    reused = 0
    for doc_id, (document, sha) in enumerate(zip(docs, shas, strict=True), start=1):
        kept = plan.kept.get(document.path) if plan is not None else None
        if kept is not None:
            entries.append(IndexEntry(kept.path, kept.title, kept.summary, kept.n_sections))
            reused += 1
            continue
        rows = None if plan is not None else old.reusable(document.path, sha)
        if rows is not None:
            rows = replace(rows, size=len(document.data))
            reused += 1
        else:
            rows = _prepare(document, max_chars, now, definitions_for)
        entries.append(IndexEntry(rows.path, rows.title, rows.summary, len(rows.sections)))
        fresh.append((doc_id, rows))
    return _Collected(entries, list(shas), fresh, reused)


def _open_build(tmp: Path) -> sqlite3.Connection:
    conn = connect_new(tmp)
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute(f"PRAGMA cache_size = -{_BUILD_CACHE_KIB}")
    return conn


def _write_file(
    tmp: Path, collected: _Collected, plan: PatchPlan | None, meta: dict[str, str]
) -> None:
    if plan is not None:
        copy_previous(plan, tmp)
    conn = _open_build(tmp)
    try:
        with translating_sqlite_errors(f"writing {tmp}"):
            if plan is not None:
                apply_patch(conn, plan, collected.fresh, meta, _OURS)
                return
            for statement in schema_statements():
                conn.execute(statement)
            conn.execute("BEGIN")
            insert_documents(conn, collected.fresh, 1)
            write_meta(conn, meta, _OURS)
            conn.execute("COMMIT")
    finally:
        conn.close()


def _meta(
    collected: _Collected, corpus_root: str, index_budget: int, max_chars: int, now: str
) -> dict[str, str]:
    scope = Path(corpus_root).name or corpus_root
    index = build_index(scope, collected.entries, index_budget)
    pairs = ((e.path, sha) for e, sha in zip(collected.entries, collected.shas, strict=True))
    return {
        "schema_version": SCHEMA_VERSION,
        "corpus_root": corpus_root,
        "corpus_fingerprint": corpus_fingerprint(pairs),
        "index_text": index.text,
        "index_tokens": str(index.tokens),
        "index_mode": index.mode,
        "summarizer": SUMMARIZER,
        "section_max_chars": str(max_chars),
        "ingested_at": now,
    }


def write_export(
    out: Path,
    documents: Iterable[SourceDocument],
    *,
    corpus_root: str,
    previous: Path | None = None,
    index_budget: int = DEFAULT_INDEX_BUDGET,
    max_chars: int = SECTION_MAX_CHARS,
    definitions_for: DefinitionsFor | None = None,
) -> ExportReport:
    """Write ``documents`` as a ContextPull store at ``out`` (atomically replaced).

    ``previous`` (often ``out`` itself) lends the rows of documents whose SHA-256 did not
    change; ``index_budget`` bounds ``meta.index_text`` in cl100k tokens;
    ``definitions_for(path, data)`` supplies code definitions for a document that is
    sectioned afresh and has none (``None`` when it has none), so reused documents cost
    nothing.
    """
    out = Path(out)
    now = _now()
    docs = _ordered(documents)
    shas = [sha256_hex(d.data) for d in docs]
    with PreviousExport(previous, max_chars) as old:
        plan = plan_patch(old, [d.path for d in docs], shas)
        collected = _collect(docs, shas, old, plan, max_chars, now, definitions_for)
    meta = _meta(collected, corpus_root, index_budget, max_chars, now)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        _write_file(tmp, collected, plan, meta)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return ExportReport(
        out, len(docs), sum(e.n_sections for e in collected.entries), collected.reused,
        len(docs) - collected.reused, meta["corpus_fingerprint"], meta["index_mode"],
        int(meta["index_tokens"]), plan is not None,
    )  # fmt: skip
