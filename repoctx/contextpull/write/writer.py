"""`contextpull/write/writer` — write a ContextPull store (the export) from documents.

A full rewrite is built under a temporary name beside ``out`` and renamed into place,
so a reader holding the old file keeps a consistent view. Documents whose SHA-256 did
not change are taken from the previous export: when this writer made it, by patching
only what changed (``contextpull/write/patch``) — in place, in one transaction, when the
previous export is ``out`` itself (readers see the old or the new state: SQLite's
atomic commit; a killed patch is rolled back by the next open), else in a copy renamed
into place; otherwise by copying their rows into a full rewrite. The result is in
rollback-journal mode, so read-only opens create no side files.

Documents to section afresh are prepared and encoded by ``contextpull/write/pool`` (in worker
processes for a big export) while this process inserts them in path order, all in one
transaction. With no previous export (nothing to reuse, nothing to patch) the files are
read there too, so this process never holds the tree's bytes.
The temporary file is built without a journal and without syncs (a failed build is
deleted, never used), then synced and renamed. A full rewrite also uses
16 KiB pages and holds FTS5's automerge off until its last statement. ``meta.index_text``
is chosen by ``contextpull/write/index_text`` with the token counts the previous export
recorded (``repoctx_meta.index_counts``), so an unchanged index is not counted again.
Files given unread (``contextpull/write/files``) are read only when the previous export, patched,
cannot vouch for them by their stat; each document's stat is recorded for the next export.
Files left out are counted by reason in the report's ``skipped``. Before it starts, an
export removes the temporary files that killed exports to the same output left behind
(``contextpull/write/leftovers``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from copy import deepcopy
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from repoctx.contextpull import sql
from repoctx.contextpull.connection import connect_in_place, connect_new
from repoctx.contextpull.schema import (
    FTS_ROWIDS_KEY,
    FTS_ROWIDS_VALUE,
    INDEX_COUNTS_KEY,
    SCHEMA_VERSION,
    SECTION_MAX_CHARS,
    STATS_SINCE_KEY,
    WRITER_KEY,
    WRITER_NAME,
    schema_statements,
)
from repoctx.contextpull.sections.documents import SourceDocument
from repoctx.contextpull.sections.summary import SUMMARIZER
from repoctx.contextpull.sqlite_errors import translating_sqlite_errors
from repoctx.contextpull.write.encoded import EncodedDocument
from repoctx.contextpull.write.extra_rows import ExtraRows, section_rows_of
from repoctx.contextpull.write.files import Skips, UnreadFile, Vouch, Vouched, resolve
from repoctx.contextpull.write.index_text import DEFAULT_INDEX_BUDGET, IndexEntry, build_index
from repoctx.contextpull.write.inserts import insert_documents, write_meta
from repoctx.contextpull.write.leftovers import remove_leftovers, temporary_name
from repoctx.contextpull.write.patch import (
    CopyAhead,
    PatchPlan,
    apply_patch,
    begin_in_place,
    commit_in_place,
    keep_replaced,
    patches_in_place,
    plan_patch,
    sync_file,
)
from repoctx.contextpull.write.pool import (
    DefinitionsSource,
    Item,
    Unexported,
    encode_all,
    reads_files,
)
from repoctx.contextpull.write.previous import FileToken, PreviousExport
from repoctx.contextpull.write.records import sha256_hex
from repoctx.errors import ContextPullError
from repoctx.tokenizer import encoding

# Our repoctx_meta entries, besides INDEX_COUNTS_KEY (the index's own, set by _meta).
_OURS = {WRITER_KEY: WRITER_NAME, FTS_ROWIDS_KEY: FTS_ROWIDS_VALUE}
# Build-time page cache (KiB, negative = size) while one transaction writes the whole
# file. 16 MiB, not 64: with the search tables inserted in the same pass the
# writer's SQLite held 165 MiB at the end of Django's inserts with 64 MiB of cache and
# 67 MiB with 16, for no more CPU (5.4-5.8 vs 5.2-5.4 s; the spilled pages go to the OS's
# page cache, journal off).
_BUILD_CACHE_KIB = 16384
# An in-place patch's page cache: a spill would take the file's exclusive lock early and
# stop its readers, so a patch keeps what it changes in memory.
_PATCH_CACHE_KIB = 65536
# Page size of a fresh file: sections of up to 2,000 characters are stored twice (their
# row and the FTS content) and fill 4 KiB pages badly; 16 KiB pages made the inserts of
# Django's export ~15% cheaper, its file ~25% smaller and grep ~15% faster, for ~5% more
# CPU per search (bench/contextpull.py).
_PAGE_SIZE = 16384
# A finished file with more than 1/_FREE_SHARE of its pages free is written again compact.
_FREE_SHARE = 8


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
    skipped: Skips = field(default_factory=Skips)
    """Files left out, by reason (binary, too large, unreadable, and the caller's)."""
    leftovers_removed: tuple[str, ...] = ()
    """Temporary files of killed exports to the same output, removed first."""


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


Given = SourceDocument | UnreadFile
Resolved = SourceDocument | Vouched


def _with_path(document: Given, path: str) -> Given:
    return document if document.path == path else replace(document, path=path)


def _ordered(documents: Iterable[Given]) -> list[Given]:
    docs = [_with_path(d, normalise_path(d.path)) for d in documents]
    docs.sort(key=lambda d: d.path.encode("utf-8"))
    for first, second in zip(docs, docs[1:], strict=False):
        if first.path == second.path:
            raise ContextPullError(f"document path {first.path!r} given twice")
    return docs


@dataclass
class _Work:
    """The documents of an export in path order: index entries (``None`` until the
    document's rows exist) and what to insert, ``items[i]`` as ``doc_ids[i]``; ``restat``
    holds ``(mtime_ns, doc_id)`` of kept documents read under another stat than recorded."""

    entries: list[IndexEntry | None]
    shas: list[str]
    doc_ids: list[int]
    items: list[Item]
    reused: int
    restat: list[tuple[int | None, int]]
    reading: Skips | None = None
    """Set when ``items`` are files read as they are encoded (``_reading_work``): the
    documents, their ids and SHA-256s come with the results, and what was left out is
    counted here."""


@dataclass(frozen=True)
class _Settings:
    """An export's inputs besides its documents."""

    corpus_root: str
    index_budget: int
    max_chars: int
    now: str
    definitions_for: DefinitionsSource | None
    index_counts: Mapping[str, int]  # the previous export's (``TokenMemo``)
    stats_since_ns: int | None
    section_rows: ExtraRows | None = None  # the finalize hook's (``contextpull/write/extra_rows``)


def _resolved(given: Sequence[Given], vouch: Vouch | None, skipped: Skips,
              ) -> tuple[list[Resolved], list[str]]:
    """The documents with unread files vouched for or read, and their SHA-256s."""
    docs = resolve(given, vouch, skipped)
    return docs, [d.sha256 or sha256_hex(d.data) for d in docs]


def _read_vouched(
    given: Sequence[Given], docs: Sequence[Resolved], shas: Sequence[str], skipped: Skips
) -> tuple[list[Resolved], list[str]]:
    """``docs`` with the vouched files read after all; files already read (or left out)
    are not read again."""
    unread = {g.path: g for g in given}
    again = [unread[d.path] if isinstance(d, Vouched) else replace(d, sha256=sha)
             for d, sha in zip(docs, shas, strict=True)]  # fmt: skip
    return _resolved(again, None, skipped)


def _plan_work(
    docs: Sequence[Resolved], shas: Sequence[str], old: PreviousExport, plan: PatchPlan | None,
) -> _Work:  # fmt: skip
    """What to insert: every document, or only the changed ones under ``plan``."""
    work = _Work([], list(shas), [], [], 0, [])
    for doc_id, (document, sha) in enumerate(zip(docs, shas, strict=True), start=1):
        kept = plan.kept.get(document.path) if plan is not None else None
        if kept is not None:
            work.entries.append(IndexEntry(kept.path, kept.title, kept.summary, kept.n_sections))
            work.reused += 1
            if isinstance(document, SourceDocument) and (
                document.mtime_ns != old.recorded_mtime(document.path)
            ):
                work.restat.append((document.mtime_ns, doc_id))
            continue
        assert isinstance(document, SourceDocument), "a patch keeps every vouched file"
        rows = None if plan is not None else old.reusable(document.path, sha)
        work.entries.append(None)
        work.doc_ids.append(doc_id)
        if rows is not None:
            work.items.append(replace(rows, size=len(document.data), mtime_ns=document.mtime_ns))
            work.reused += 1
        else:
            work.items.append(document)
    return work


def _reading_work(given: Sequence[Given], skipped: Skips) -> _Work:
    """Every document to section afresh, files unread: with no previous export nothing
    is reused or patched, so nothing needs a file's SHA-256 before its rows exist."""
    return _Work([], [], [], list(given), 0, [], skipped)


def _placed_read(
    work: _Work, encoded: Iterable[EncodedDocument | Unexported], skipped: Skips
) -> Iterator[tuple[int, EncodedDocument]]:
    """``(doc_id, document)`` pairs of a ``_reading_work``, ids in order of the files
    still exportable when read."""
    for doc in encoded:
        if isinstance(doc, Unexported):
            skipped.add(doc.path, doc.reason)
            continue
        work.entries.append(IndexEntry(doc.path, doc.title, doc.summary, doc.n_sections))
        work.shas.append(doc.document[4])  # ``documents.sha256`` (``contextpull/write/encoded``)
        yield len(work.entries), doc


def _placed(
    work: _Work, encoded: Iterable[EncodedDocument | Unexported]
) -> Iterator[tuple[int, EncodedDocument]]:
    """``(doc_id, document)`` pairs, filling in each document's index entry."""
    if work.reading is not None:
        yield from _placed_read(work, encoded, work.reading)
        return
    for doc_id, doc in zip(work.doc_ids, encoded, strict=True):
        assert not isinstance(doc, Unexported), "only unread files are read by the pool"
        work.entries[doc_id - 1] = IndexEntry(doc.path, doc.title, doc.summary, doc.n_sections)
        yield doc_id, doc


def _meta(work: _Work, settings: _Settings) -> tuple[dict[str, str], dict[str, str]]:
    """The ``meta`` rows and our ``repoctx_meta`` entries."""
    entries = [e for e in work.entries if e is not None]
    assert len(entries) == len(work.entries), "every document has its rows by now"
    scope = Path(settings.corpus_root).name or settings.corpus_root
    index = build_index(scope, entries, settings.index_budget, settings.index_counts)
    pairs = ((e.path, sha) for e, sha in zip(entries, work.shas, strict=True))
    ours = {**_OURS, INDEX_COUNTS_KEY: json.dumps(index.counts, sort_keys=True)}
    if settings.stats_since_ns is not None:
        ours[STATS_SINCE_KEY] = str(settings.stats_since_ns)
    meta = {
        "schema_version": SCHEMA_VERSION,
        "corpus_root": settings.corpus_root,
        "corpus_fingerprint": corpus_fingerprint(pairs),
        "index_text": index.text,
        "index_tokens": str(index.tokens),
        "index_mode": index.mode,
        "summarizer": SUMMARIZER,
        "section_max_chars": str(settings.max_chars),
        "ingested_at": settings.now,
    }
    return meta, ours


def _open_build(tmp: Path) -> sqlite3.Connection:
    conn = connect_new(tmp)
    # No journal and no syncs while building: nobody opens the file before the rename,
    # and a failed build is deleted; _write_file syncs once and restores DELETE mode.
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute(f"PRAGMA cache_size = -{_BUILD_CACHE_KIB}")
    return conn


def _create(conn: sqlite3.Connection) -> None:
    """The tables of a fresh file (before its transaction begins)."""
    conn.execute(f"PRAGMA page_size = {_PAGE_SIZE}")  # before the first table
    # Free pages can be given back in place (``_compact``): a pointer map per ~3,000
    # pages costs 0.03% of the file, readers see an ordinary database.
    conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
    for statement in schema_statements():
        conn.execute(statement)
    # A full rewrite merges FTS segments only when a level overflows (crisis merge),
    # not as they accumulate: ~10% less FTS work on Django, and fewer segments left.
    conn.execute(sql.SET_FTS_AUTOMERGE, (0,))


def _fill(
    conn: sqlite3.Connection, work: _Work, plan: PatchPlan | None, settings: _Settings
) -> dict[str, str]:
    """Insert (or patch) and write ``meta`` inside the caller's transaction; returns the
    ``meta``."""
    # A full rewrite builds the finalize hook's section rows in the same pass (a patch
    # leaves them to the hook, which updates what changed).
    extra = settings.section_rows if plan is None else None
    sink = None if extra is None else extra.open(conn)
    # The pool loads the tokenizer beside the inserts: the index needs it at the end.
    encoded = encode_all(
        work.items, settings.max_chars, settings.now, settings.definitions_for,
        meanwhile=encoding, extra=extra,
    )
    if plan is not None:
        apply_patch(conn, plan, _placed(work, encoded))
        conn.executemany(sql.UPDATE_MTIME, work.restat)
    else:
        insert_documents(conn, _placed(work, encoded), 1, extra=sink)
    if sink is not None:
        sink.close()
    work.items.clear()  # every document's bytes: not held through the finalize hook
    meta, ours = _meta(work, settings)
    write_meta(conn, meta, ours)
    if plan is None:  # later writers (a patch) get FTS5's usual merging
        conn.execute(sql.SET_FTS_AUTOMERGE, (sql.FTS_AUTOMERGE_DEFAULT,))
    return meta


Finalize = Callable[[sqlite3.Connection, "set[int] | None"], None]
PREVIOUS_SCHEMA = "previous"
"""After a patch, ``finalize`` finds what the patch replaced attached under this name
(read it only), e.g. to delete from contentless FTS5 tables: the previous file after a
patch of a copy; after an in-place patch, the deleted rows of ``documents``,
``repoctx_documents``, ``sections`` (with their rowids) and ``repoctx_sections``."""


def _finalize(conn: sqlite3.Connection, finalize: Finalize, plan: PatchPlan | None) -> None:
    """``finalize``, with the file a patch replaced (``plan.source``) attached."""
    if plan is not None:
        conn.execute(f"ATTACH DATABASE ? AS {PREVIOUS_SCHEMA}", (str(plan.source),))
    finalize(conn, None if plan is None else set())
    conn.commit()
    if plan is not None:
        conn.execute(f"DETACH DATABASE {PREVIOUS_SCHEMA}")


def _write_file(
    tmp: Path, work: _Work, plan: PatchPlan | None, settings: _Settings,
    finalize: Finalize | None, ahead: CopyAhead | None,
) -> dict[str, str]:
    """Build the export in ``tmp`` (a patch on the copy ``ahead`` made of ``plan.source``);
    returns its ``meta``."""
    if ahead is not None:  # there is one whenever there is a plan: the previous is patchable
        error = ahead.wait()
        if plan is None:
            tmp.unlink(missing_ok=True)  # copied in vain: a full rewrite starts empty
        elif error is not None:
            raise error
    conn = _open_build(tmp)
    compact: Path | None = None
    try:
        with translating_sqlite_errors(f"writing {tmp}"):
            if plan is None:
                _create(conn)
            conn.execute("BEGIN")
            meta = _fill(conn, work, plan, settings)
            conn.execute("COMMIT")
            if finalize is not None:
                _finalize(conn, finalize, plan)
            conn.execute("PRAGMA journal_mode = DELETE")  # what readers find (DESIGN §5)
            compact = _compact(conn, tmp)
    finally:
        conn.close()
    if compact is not None:
        os.replace(compact, tmp)
    sync_file(tmp)
    return meta


_INCREMENTAL = 2
"""``PRAGMA auto_vacuum``'s value for INCREMENTAL."""


def _patch_in_place(
    out: Path, tmp: Path, work: _Work, plan: PatchPlan, settings: _Settings,
    finalize: Finalize | None, token: FileToken,
) -> dict[str, str] | None:  # fmt: skip
    """Patch ``out`` itself in one transaction, ``finalize`` included; returns its
    ``meta``, or None (nothing written) when ``out`` changed since ``token`` or its
    readers kept the commit waiting past the busy timeout (then a copy is patched)."""
    conn = connect_in_place(out)
    compact: Path | None = None
    try:
        with translating_sqlite_errors(f"patching {out}"):
            conn.execute(f"PRAGMA cache_size = -{_PATCH_CACHE_KIB}")  # no spill: readers go on
            if finalize is not None:  # ATTACH cannot run inside a transaction
                conn.execute(f"ATTACH DATABASE ':memory:' AS {PREVIOUS_SCHEMA}")
            if not begin_in_place(conn, out, token):
                return None
            try:
                if finalize is not None:
                    keep_replaced(conn, PREVIOUS_SCHEMA, plan.rewritten)
                meta = _fill(conn, work, plan, settings)
                if finalize is not None:
                    finalize(conn, set())
                if not commit_in_place(conn):
                    conn.execute("ROLLBACK")
                    return None
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            compact = _compact(conn, tmp)
    finally:
        conn.close()
    if compact is not None:  # rare: many free pages (a finalize hook rebuilt its tables)
        sync_file(compact)
        os.replace(compact, out)
    return meta


def _compact_name(tmp: Path) -> Path:
    return tmp.with_name(tmp.name + ".compact")


def _compact(conn: sqlite3.Connection, tmp: Path) -> Path | None:
    """A compact copy of ``tmp`` when over ``1/_FREE_SHARE`` of its pages are free (a
    patch copies the previous file whole, free pages included, so what a finalize hook
    dropped, e.g. search tables rebuilt, would stay in every later export), else None.
    A file written with ``auto_vacuum = INCREMENTAL`` (every full build:
    the search tables' final FTS5 merge left ~5 MB free on Django) gives its free pages
    back in place instead, and None is returned."""
    (free,) = conn.execute("PRAGMA freelist_count").fetchone()
    if free and conn.execute("PRAGMA auto_vacuum").fetchone()[0] == _INCREMENTAL:
        # sqlite3's execute steps a statement without result columns once, and this one
        # frees a page per step: executescript runs it to the end
        conn.executescript("PRAGMA incremental_vacuum;")
        return None
    (pages,) = conn.execute("PRAGMA page_count").fetchone()
    if free * _FREE_SHARE <= pages:
        return None
    compact = _compact_name(tmp)
    compact.unlink(missing_ok=True)
    conn.execute("VACUUM INTO ?", (str(compact),))
    return compact


def write_export(
    out: Path,
    documents: Iterable[SourceDocument | UnreadFile],
    *,
    corpus_root: str,
    previous: Path | None = None,
    index_budget: int = DEFAULT_INDEX_BUDGET,
    max_chars: int = SECTION_MAX_CHARS,
    definitions_for: DefinitionsSource | None = None,
    finalize: Finalize | None = None,
    stats_since_ns: int | None = None,
    skipped: Skips | None = None,
) -> ExportReport:
    """Write ``documents`` as a ContextPull store at ``out`` (atomically replaced).

    ``previous`` (often ``out`` itself) lends the rows of documents whose SHA-256 did not
    change; ``index_budget`` bounds ``meta.index_text`` in cl100k tokens;
    ``definitions_for(path, data)`` supplies code definitions for a document that is
    sectioned afresh and has none (``None`` when it has none), so reused documents cost
    nothing. One that splits (``portion(items)``, ``contextpull/write/pool.Splits``) gives a
    source per chunk of documents, called in worker processes; any other is called in
    this process. ``finalize(conn, changed)`` runs on the finished file before it is
    renamed into place, or inside an in-place patch's transaction, to add extra tables
    (``changed`` is None after a full rewrite, an empty set after a patch: the hook finds
    what drifted itself, and what the patch replaced is attached as ``previous``).
    ``documents`` may hold files not read yet (``contextpull/write/files``); ``stats_since_ns``
    (``time.time_ns()`` before any of their stats was taken) lets the next export trust
    the stats recorded (``UnreadFile.mtime_ns``, ``SourceDocument.mtime_ns``).
    ``skipped`` holds what the caller left out already; the files this export leaves
    out are added to it, and it becomes the report's. A ``finalize`` with a
    ``section_rows`` (``contextpull/write/extra_rows``) has its tables' rows computed in the
    sectioning workers and inserted with the documents on a full rewrite.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    skipped = Skips() if skipped is None else skipped
    leftovers = remove_leftovers(out)
    settings = _Settings(corpus_root, index_budget, max_chars, _now(), definitions_for, {},
                         stats_since_ns, section_rows_of(finalize))  # fmt: skip
    given = _ordered(documents)
    before = deepcopy(skipped)
    report = _export(out, given, previous, settings, finalize, skipped, in_place=True)
    if report is None:  # the file changed under the plan: patch a copy instead
        skipped.reset_to(before)
        report = _export(out, given, previous, settings, finalize, skipped, in_place=False)
        assert report is not None, "only an in-place patch gives up"
    return replace(report, leftovers_removed=tuple(leftovers))


def _export(
    out: Path, given: list[Given], previous: Path | None, settings: _Settings,
    finalize: Finalize | None, skipped: Skips, *, in_place: bool,
) -> ExportReport | None:  # fmt: skip
    """``write_export`` once; None (nothing written) when an in-place patch found ``out``
    changed since its plan was read."""
    tmp = temporary_name(out)
    tmp.unlink(missing_ok=True)
    ahead: CopyAhead | None = None
    try:
        with PreviousExport(previous, settings.max_chars) as old:
            token = old.token if in_place and patches_in_place(old, out) else None
            if old.patchable and old.path is not None and token is None:
                ahead = CopyAhead(old.path, tmp)  # copy while the documents are read
            plan = None
            if old.path is None and reads_files(settings.definitions_for):
                work = _reading_work(given, skipped)  # the pool's workers read the files
            else:
                docs, shas = _resolved(given, old.vouch, skipped)
                plan = plan_patch(old, [d.path for d in docs], shas)
                if plan is None and any(isinstance(d, Vouched) for d in docs):
                    # only a patch keeps them
                    docs, shas = _read_vouched(given, docs, shas, skipped)
                work = _plan_work(docs, shas, old, plan)
                del docs  # the documents' bytes live on in ``work.items`` only, until inserted
            settings = replace(settings, index_counts=old.index_counts)
        if plan is not None and token is not None:
            meta = _patch_in_place(out, tmp, work, plan, settings, finalize, token)
            if meta is None:
                return None
        else:
            meta = _write_file(tmp, work, plan, settings, finalize, ahead)
            os.replace(tmp, out)
        n_docs = len(work.entries)
    finally:
        if ahead is not None:
            ahead.wait()  # never leave the copy writing a file about to be deleted
        tmp.unlink(missing_ok=True)
        _compact_name(tmp).unlink(missing_ok=True)
    sections = sum(e.n_sections for e in work.entries if e is not None)
    return ExportReport(
        out, n_docs, sections, work.reused, n_docs - work.reused,
        meta["corpus_fingerprint"], meta["index_mode"], int(meta["index_tokens"]),
        plan is not None, skipped,
    )  # fmt: skip
