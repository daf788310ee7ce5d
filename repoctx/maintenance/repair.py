"""maintenance/repair — rebuild a damaged store: re-derive what can be, keep what decodes.

``repair`` never writes into the damaged store. It builds a fresh one beside it, in
``<store>/repair.tmp/``: the trees nothing can re-derive (memory, session, and the
embeddings of the vector trees) are copied from every record that still decodes
(``trees.Salvage``), merged with a peer's or a backup's when one is given; the
store-local values that must survive (replica id, clock, embedder choice) are kept; then
a full reconcile pass re-projects the derived trees (structural, symbol, content, xref),
the back-fill rebuilds the vector index and coverage when an embedder is chosen, and a
fresh export is written (nothing reused from the old file). Last, the ``lmdb``
directories are exchanged in one atomic ``renameat2(RENAME_EXCHANGE)`` (two renames
where the system lacks it), the export is replaced by a rename, and the damaged copy
removed. The report lists every record that could not be kept.

An indexer running at the start or the swap is refused (``StoreBusyError``). Memory
writers are held off from before the copy to after the swap (``reconcile.repair_lock``):
a write waits a bounded time and is then refused naming the busy store, and a handle
opened before the swap refuses to write into the discarded copy; so nothing is written
meanwhile, and the report's ``meanwhile`` says so.
"""

from __future__ import annotations

import ctypes
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repoctx import vectors
from repoctx.errors import DiskFullError, StoreFormatError, disk_full
from repoctx.reconcile import PassOptions, reconcile_pass, repair_lock, writer_lock
from repoctx.retrieval.index.export_refresh import refresh_export
from repoctx.retrieval.workspace import EXPORT_NAME
from repoctx.store import (
    LMDB_DIRNAME,
    STORE_DIRNAME,
    Store,
    default_repo_id,
    open_store,
    store_path,
)
from repoctx.trees import BY_FAMILY, TREES, Damage, Salvage

DERIVED = tuple(BY_FAMILY[family].name
                for family in ("file", "symbol", "content", "xref", "coverage", "vidx", "vcov"))
"""Trees a reconcile pass (and the vector back-fill) re-projects from the files."""
KEPT = tuple(t.name for t in TREES if t.name not in DERIVED)
"""Trees only their writers know: copied from what decodes, never re-derived."""
KEPT_LOCAL = ("replica", "clock", "vectors/embedder/")
"""Store-local values (a trailing ``/``: every name under it) a repaired store keeps;
the rest (checkpoints, caches, digests) is rebuilt on use."""
WORK_DIRNAME = "repair.tmp"
_LISTED = 200


@dataclass(slots=True)
class RepairReport:
    """What a repair kept, lost, took from elsewhere and rebuilt."""

    store: Path
    repo_id: str = ""
    replica_id: str = ""
    replica_kept: bool = False
    rescued: list[str] = field(default_factory=list)
    kept: dict[str, int] = field(default_factory=dict)
    lost: list[Damage] = field(default_factory=list)
    lost_records: int = 0
    recovered: int = 0
    """Records a peer or backup (``--from``) held that the damaged store did not give."""
    source: str | None = None
    rebuilt: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    meanwhile: int = 0
    """Writes taken in while the repair ran: none, as writers are held off throughout."""

    def as_json(self) -> dict[str, Any]:
        """The report as JSON (camelCase keys; lost records listed up to a bound)."""
        return {"store": str(self.store), "repoId": self.repo_id, "replicaId": self.replica_id,
                "replicaKept": self.replica_kept, "fileRescue": self.rescued,
                "kept": self.kept, "lostRecords": self.lost_records,
                "lost": [d.as_json() for d in self.lost[:_LISTED]],
                "recoveredFrom": self.source, "recovered": self.recovered,
                "rebuilt": self.rebuilt, "meanwhile": self.meanwhile,
                "warnings": self.warnings}

    def text(self) -> str:
        """The report as lines for a terminal."""
        lines = [f"repaired {self.store} (repo {self.repo_id}, replica {self.replica_id}"
                 + ("" if self.replica_kept else ", a new one: the old id did not decode")
                 + ")"]
        lines += [f"  data file: {r}" for r in self.rescued]
        lines.append("  kept: " + ", ".join(f"{n} {t}" for t, n in self.kept.items()))
        if self.source:
            lines.append(f"  merged from {self.source}: {self.recovered} records the damaged "
                         "store did not give back")
        lines.append(f"  lost: {self.lost_records} records" + (":" if self.lost else ""))
        lines += [f"    {d.tree} {d.key or '-'}: {d.reason}" for d in self.lost[:_LISTED]]
        lines.append("  rebuilt: " + ", ".join(f"{k} {v}" for k, v in self.rebuilt.items()))
        lines.append(f"  meanwhile: {self.meanwhile} writes (memory writers waited for the "
                     "repair)")
        lines += [f"  warning: {w}" for w in self.warnings]
        return "\n".join(lines)


def repair(root: Path, *, store_dir: Path | None = None, repo_id: str | None = None,
           source: Path | None = None) -> RepairReport:
    """Rebuild the store of the repository at ``root`` (see the module docstring)."""
    root = Path(root).resolve()
    directory = store_path(root, store_dir)
    peer = _peer_lmdb(source) if source is not None else None
    if not (directory / LMDB_DIRNAME).is_dir() and peer is None:
        raise StoreFormatError(f"no repoctx store at {directory} to repair; run `repoctx "
                               "index` to build one (or give --from a backup)")
    report = RepairReport(directory, source=str(source) if source else None)
    work = directory / WORK_DIRNAME
    # Memory writers wait from before the salvage to after the swap: a write between
    # the two would land in the copy the swap discards.
    with repair_lock(directory):
        with writer_lock(directory, wait=False):
            shutil.rmtree(work, ignore_errors=True)  # a repair that died before its swap
        try:
            _rebuild_beside(root, directory, work, repo_id, peer, report)
        except BaseException as exc:
            shutil.rmtree(work, ignore_errors=True)  # the damaged store is left as it was
            if isinstance(exc, DiskFullError) or disk_full(exc, directory) is not None:
                raise DiskFullError.holding(directory) from exc
            raise
    return report


def _rebuild_beside(root: Path, directory: Path, work: Path, repo_id: str | None,
                    peer: Path | None, report: RepairReport) -> None:
    """Salvage into ``work``, rebuild there, and swap the result in."""
    with writer_lock(directory, wait=False):
        work.mkdir(parents=True)
        store = _salvaged_store(root, directory, work, repo_id, peer, report)
    try:
        store.path = directory  # the pass locks, walks around and reports on the real one
        _rebuild(store, root, work / EXPORT_NAME, report)
    finally:
        store.close()
    with writer_lock(directory, wait=False):
        _swap(directory, work)


def _peer_lmdb(source: Path) -> Path:
    """The LMDB directory of a peer or backup given as a store directory or repository."""
    for candidate in (source / LMDB_DIRNAME, source / STORE_DIRNAME / LMDB_DIRNAME):
        if candidate.is_dir():
            return candidate
    raise StoreFormatError(f"no repoctx store at {source} (neither {source}/{LMDB_DIRNAME} "
                           f"nor {source}/{STORE_DIRNAME}/{LMDB_DIRNAME} exists)")


def _salvaged_store(root: Path, directory: Path, work: Path, repo_id: str | None,
                    peer: Path | None, report: RepairReport) -> Store:
    """A fresh store in ``work`` holding what decodes of the kept trees."""
    damaged = directory / LMDB_DIRNAME
    old = Salvage(damaged, work / "rescue") if damaged.is_dir() else None
    salvaged: set[str] = set()
    try:
        local = old.local_items(KEPT_LOCAL) if old is not None else {}
        ids = old.repo_ids() if old is not None else []
        report.repo_id = repo_id or (ids[0] if len(ids) == 1 else default_repo_id(root))
        report.replica_kept = isinstance(local.get("replica"), str)
        store = open_store(root, repo_id=report.repo_id, store_dir=work,
                           replica_id=local.get("replica") if report.replica_kept else None)
        report.replica_id = store.replica_id
        with store.batch() as batch:
            for name, value in local.items():
                if name != "replica":
                    batch.put_local(name, value)
        if isinstance(local.get("clock"), int):
            store.clock.observe(local["clock"])  # ticks never go back on this replica
        if old is not None:
            report.rescued = old.rescued
            copied = old.copy_into(store.trees, KEPT)
            report.kept, report.lost, report.lost_records = (
                copied.records, copied.lost, copied.lost_records)
            salvaged = copied.keys
    finally:
        if old is not None:
            old.close()
    if peer is not None:
        _merge_peer(store, peer, work, salvaged, report)
    return store


def _merge_peer(store: Store, peer: Path, work: Path, salvaged: set[str],
                report: RepairReport) -> None:
    """Merge a peer's or backup's kept trees in; count the records it held beyond the
    full keys ``salvaged`` from the damaged store."""
    with Salvage(peer, work / "rescue-peer") as other:
        copied = other.copy_into(store.trees, KEPT)
    for tree, count in copied.records.items():
        report.kept[tree] = report.kept.get(tree, 0) + count
    report.recovered = len(copied.keys - salvaged)
    report.warnings += [f"in {peer}: {d.tree} {d.key or '-'}: {d.reason}" for d in copied.lost]


def _rebuild(store: Store, root: Path, export: Path, report: RepairReport) -> None:
    """Re-project every derived tree and write a fresh export to ``export``."""
    passed = reconcile_pass(store, root, PassOptions(full=True))
    report.rebuilt["files"] = passed.scanned
    report.rebuilt["records"] = passed.records_written
    report.warnings += passed.warnings
    chosen = vectors.choose(store)
    if not vectors.is_none(chosen):
        embedded = vectors.backfill(store, chosen)
        report.warnings += [f"vectors: {embedded.error}"] if embedded.error else []
    exported = refresh_export(store, root, export, report.warnings)
    if exported is not None:
        report.rebuilt["exportDocuments"] = exported.documents
        report.rebuilt["exportSections"] = exported.sections


def _swap(directory: Path, work: Path) -> None:
    """Put the rebuilt store in place of the damaged one: one atomic exchange of the two
    directories where the kernel offers it (``renameat2``), else two renames."""
    live, fresh = directory / LMDB_DIRNAME, work / LMDB_DIRNAME
    if not (live.exists() and _exchange(fresh, live)):
        aside = directory / f"{LMDB_DIRNAME}.damaged.{os.getpid()}"
        if live.exists():
            os.rename(live, aside)
        os.rename(fresh, live)
    if (work / EXPORT_NAME).exists():
        os.replace(work / EXPORT_NAME, directory / EXPORT_NAME)
    shutil.rmtree(work, ignore_errors=True)  # holds the damaged lmdb after an exchange
    for aside in directory.glob(f"{LMDB_DIRNAME}.damaged.*"):
        shutil.rmtree(aside, ignore_errors=True)


_RENAME_EXCHANGE, _AT_FDCWD = 2, -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False when
    this system cannot, and the caller renames instead."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    done = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return done == 0
