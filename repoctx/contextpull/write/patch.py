"""`contextpull/write/patch` — re-export by patching what changed in the previous export.

Two ways, one patch. When the previous export *is* the output (``repoctx index`` and
``repoctx export`` re-exporting their own file), it is patched **in place**, inside one
SQLite write transaction in rollback-journal mode: readers see the old state or the new
one, never a mix, and a process killed mid-patch leaves a hot journal that the next
open rolls back (``contextpull/connection``). This departs from DESIGN's "an export is a
new file renamed into place" for patches only, because copying and syncing a whole
export (176 MB on Django) to change one document cost most of a one-file re-index
(docs/store.md, "In-place patches"). The transaction begins ``IMMEDIATE`` and first
checks the file is still the one the plan was read from (:func:`begin_in_place`);
otherwise nothing is written and the writer patches a copy instead. When the previous
export is another file, it is copied to the temporary file and flushed to disk
(:class:`CopyAhead`, in a thread started before the writer knows whether it will patch)
and the copy is patched and renamed into place.

Either way, inside the writer's one transaction, the patch deletes the documents that
were removed (sections, FTS rows by rowid, side tables, embeddings), moves the ids of
kept documents when paths were added or removed (``doc_id`` stays 1..n in byte-wise path
order) and inserts the new documents; a document whose bytes changed is *replaced*
section by section (``contextpull/write/inserts.replace_sections``): a section whose id (its
path and ordinal) it still has keeps its rowid, and its rows are rewritten only where
their values changed, so the search tables keyed by rowid redo only what changed (issue
15). The writer then rewrites ``meta``. Unchanged documents keep every row they
had, embeddings and ``ingested_at`` included, exactly as the full rewrite's reuse would
give them. An in-place patch first copies the rows it will delete or rewrite (those of
removed and replaced documents) into an attached in-memory schema (:func:`keep_replaced`),
where the writer's ``finalize`` hook finds what the patch replaced, as it finds the
attached previous file after a copy.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from repoctx.contextpull import sql
from repoctx.contextpull.write.encoded import EncodedDocument
from repoctx.contextpull.write.inserts import (
    delete_documents,
    drop_document_rows,
    insert_documents,
    renumber_documents,
)
from repoctx.contextpull.write.previous import FileToken, PreviousExport, StoredDocument, file_token

# Past this share of previous documents to delete, a full rewrite costs less than a patch.
MAX_GONE_SHARE = 0.5


@dataclass(frozen=True)
class PatchPlan:
    """What a patch changes: ids of removed documents, ids to move, the documents kept as
    stored, and the documents replaced (path -> old id; their moves are in ``moves``)."""

    source: Path
    gone: tuple[int, ...]
    moves: tuple[tuple[int, int], ...]
    kept: dict[str, StoredDocument]
    replaced: dict[str, int] = field(default_factory=dict)

    @property
    def rewritten(self) -> tuple[int, ...]:
        """Old ids of every document whose rows the patch deletes or rewrites."""
        return (*self.gone, *self.replaced.values())


def plan_patch(
    previous: PreviousExport, paths: Sequence[str], shas: Sequence[str]
) -> PatchPlan | None:
    """The patch turning ``previous`` into the export of ``paths`` (sorted) with ``shas``.

    ``None`` when the previous file is not patchable or most of it would be deleted.
    """
    if not previous.patchable or previous.path is None:
        return None
    old = {doc.path: doc for doc in previous.stored_documents()}
    kept: dict[str, StoredDocument] = {}
    replaced: dict[str, int] = {}
    moves: list[tuple[int, int]] = []
    for doc_id, (path, sha) in enumerate(zip(paths, shas, strict=True), start=1):
        stored = old.get(path)
        if stored is None:
            continue
        if stored.sha256 == sha:
            kept[path] = stored
        else:
            replaced[path] = stored.doc_id
        if stored.doc_id != doc_id:
            moves.append((stored.doc_id, doc_id))
    gone = tuple(doc.doc_id for doc in old.values()
                 if doc.path not in kept and doc.path not in replaced)
    if old and len(gone) + len(replaced) > MAX_GONE_SHARE * len(old):
        return None
    return PatchPlan(previous.path, gone, tuple(moves), kept, replaced)


def apply_patch(
    conn: sqlite3.Connection,
    plan: PatchPlan,
    fresh: Iterable[tuple[int, EncodedDocument]],
) -> None:
    """Patch the copy open on ``conn`` inside the caller's transaction (``meta`` is the
    caller's too): delete, renumber, then insert ``fresh``, replacing the sections of
    ``plan.replaced`` documents in place and numbering new sections after the highest
    rowid."""
    delete_documents(conn, plan.gone)
    # A replaced document's own rows go now (they are inserted afresh); its sections
    # move with the renumbering, to be matched by id against the new ones.
    drop_document_rows(conn, plan.replaced.values())
    renumber_documents(conn, plan.moves)
    (last,) = conn.execute(sql.MAX_SECTION_ROWID).fetchone()
    insert_documents(conn, fresh, last + 1, set(plan.replaced))


def patches_in_place(previous: PreviousExport, out: Path) -> bool:
    """True when a patch of ``previous`` would patch ``out`` itself (the same file)."""
    if not previous.patchable or previous.path is None or previous.token is None:
        return False
    try:
        return os.path.samefile(previous.path, out)
    except OSError:
        return False


def begin_in_place(conn: sqlite3.Connection, out: Path, token: FileToken) -> bool:
    """Begin the patch's write transaction on ``out``; False (nothing begun) when the file
    changed since ``token`` was read or is not in rollback-journal mode."""
    (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
    if str(mode).lower() != "delete":
        return False
    try:
        conn.execute("BEGIN IMMEDIATE")  # no other writer commits until we do
    except sqlite3.OperationalError as exc:
        if _busy(exc):
            return False  # another writer kept it past the busy timeout
        raise
    if file_token(out) == token:
        return True
    conn.execute("ROLLBACK")
    return False


def commit_in_place(conn: sqlite3.Connection) -> bool:
    """Commit the patch; False (still in the transaction) when readers held the file past
    the busy timeout: the caller rolls back and patches a copy instead, as a reader that
    never finishes (an unexhausted cursor holds its lock) must not fail an index."""
    try:
        conn.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        if _busy(exc):
            return False
        raise
    return True


def _busy(exc: sqlite3.OperationalError) -> bool:
    return getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


# What the search tables' update reads of a deleted section (``retrieval/index/tables``).
_REPLACED = (
    ("documents", "doc_id IN (SELECT value FROM json_each(?))"),
    ("repoctx_documents", "doc_id IN (SELECT value FROM json_each(?))"),
    ("sections", "doc_id IN (SELECT value FROM json_each(?))"),
    ("repoctx_sections", "id IN (SELECT id FROM main.sections"
     " WHERE doc_id IN (SELECT value FROM json_each(?)))"),
)


def keep_replaced(conn: sqlite3.Connection, schema: str, gone: Sequence[int]) -> None:
    """Copy the rows of the documents ``gone`` (and their sections, with their rowids)
    into the attached ``schema``, before the patch deletes them."""
    ids = json.dumps(list(gone))
    for table, where in _REPLACED:
        names = [row[1] for row in conn.execute(f"PRAGMA main.table_info({table})")]
        if not names:
            continue  # not in this file: nothing of it to keep
        columns = ", ".join(names)
        conn.execute(f"CREATE TABLE {schema}.{table} AS SELECT {columns} FROM main.{table}"
                     " WHERE 0")
        keyed = "rowid, " if table == "sections" else ""  # the search rows' key
        conn.execute(f"INSERT INTO {schema}.{table}({keyed}{columns})"
                     f" SELECT {keyed}{columns} FROM main.{table} WHERE {where}", (ids,))


def sync_file(path: Path) -> None:
    """Flush ``path``'s data to disk (before it is renamed into place)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class CopyAhead:
    """``source`` copied to ``tmp`` and synced, in a thread (both calls release the GIL)."""

    def __init__(self, source: Path, tmp: Path) -> None:
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._copy, args=(source, tmp), name="export-copy", daemon=True
        )
        self._thread.start()

    def _copy(self, source: Path, tmp: Path) -> None:
        try:
            shutil.copyfile(source, tmp)
            sync_file(tmp)
        except BaseException as exc:  # noqa: BLE001 — handed to whoever waits
            self._error = exc

    def wait(self) -> BaseException | None:
        """Wait for the copy; returns what it raised, if anything."""
        self._thread.join()
        return self._error
