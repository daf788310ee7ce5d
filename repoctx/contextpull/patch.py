"""`contextpull/patch` — re-export by copying the previous file and patching what changed.

A previous export made by this writer (``PreviousExport.patchable``) is copied to the
temporary file and flushed to disk (:class:`CopyAhead`, in a thread started before the
writer knows whether it will patch: the walk and the reads run meanwhile, and the
writer's final sync is left only the patched pages). Then, inside the writer's one
transaction, the patch deletes the documents that were removed or whose bytes changed
(sections, FTS rows by rowid, side tables, embeddings), moves the ids of kept documents
when paths were added or removed (``doc_id`` stays 1..n in byte-wise path order) and
inserts the new and changed documents; the writer then rewrites ``meta``. Unchanged
documents keep every row they had, embeddings and ``ingested_at`` included, exactly as
the full rewrite's reuse would give them.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from repoctx.contextpull import sql
from repoctx.contextpull.encoded import EncodedDocument
from repoctx.contextpull.inserts import delete_documents, insert_documents, renumber_documents
from repoctx.contextpull.previous import PreviousExport, StoredDocument

# Past this share of previous documents to delete, a full rewrite costs less than a patch.
MAX_GONE_SHARE = 0.5


@dataclass(frozen=True)
class PatchPlan:
    """What a patch changes: ids to delete, ids to move, and the documents kept as stored."""

    source: Path
    gone: tuple[int, ...]
    moves: tuple[tuple[int, int], ...]
    kept: dict[str, StoredDocument]


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
    moves: list[tuple[int, int]] = []
    for doc_id, (path, sha) in enumerate(zip(paths, shas, strict=True), start=1):
        stored = old.get(path)
        if stored is not None and stored.sha256 == sha:
            kept[path] = stored
            if stored.doc_id != doc_id:
                moves.append((stored.doc_id, doc_id))
    gone = tuple(doc.doc_id for doc in old.values() if doc.path not in kept)
    if old and len(gone) > MAX_GONE_SHARE * len(old):
        return None
    return PatchPlan(previous.path, gone, tuple(moves), kept)


def apply_patch(
    conn: sqlite3.Connection,
    plan: PatchPlan,
    fresh: Iterable[tuple[int, EncodedDocument]],
) -> None:
    """Patch the copy open on ``conn`` inside the caller's transaction (``meta`` is the
    caller's too): delete, renumber, then insert ``fresh`` after the highest rowid."""
    delete_documents(conn, plan.gone)
    renumber_documents(conn, plan.moves)
    (last,) = conn.execute(sql.MAX_SECTION_ROWID).fetchone()
    insert_documents(conn, fresh, last + 1)


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
