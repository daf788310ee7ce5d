"""trees/trees — the named trees of one store: reads, scans, batches, stats, backup.

``Trees`` hides the engine the way ``dbm`` does: keys are strings of the key grammar,
values are records, and every write is a read-merge-write inside a ``Batch``. Reads
run in their own read-only transaction, so readers never block the writer and never
see tombstones or expired records. Knows nothing of files, symbols or memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import lmdb

from repoctx.crdt import record, wall_ms
from repoctx.crdt.record import Record
from repoctx.errors import CorruptRecordError, StoreReadOnlyError

from . import codec
from .batch import Batch
from .keys import lmdb_key, may_be_hashed, route, tree_of
from .lmdb_env import DEFAULT_MAP_SIZE, lmdb_errors, open_env
from .spec import BY_NAME, GENERATIONS, LOCAL_TREE, REAPABLE_WRITES, TREES, TreeSpec
from .visibility import visible

if TYPE_CHECKING:  # backup and compaction are imported when they run
    from .backup import BackupReport

OnCorrupt = Callable[[CorruptRecordError], None]


@dataclass(frozen=True, slots=True)
class TreeStats:
    """Size of one tree: LMDB entries (tombstones included) and bytes of pages."""

    name: str
    records: int
    bytes: int


class Snapshot:
    """A consistent read-only view of every tree (one LMDB read transaction)."""

    def __init__(self, trees: Trees, txn: lmdb.Transaction, now_ms: int) -> None:
        self._trees, self._txn, self.now_ms = trees, txn, now_ms

    def get(self, key: str) -> Record | None:
        """The visible record at ``key``, or None; raises ``CorruptRecordError``."""
        spec = tree_of(key)
        raw = self._txn.get(lmdb_key(key), db=self._trees.dbs[spec.name])
        if raw is None:
            return None
        rec = codec.decode(spec, key, raw)
        return rec if visible(rec, self.now_ms) else None

    def scan(self, prefix: str, *, on_corrupt: OnCorrupt | None = None,
             checked: bool = True) -> Iterator[tuple[str, Record]]:
        """Visible records whose key starts with ``prefix``, in key order.

        A corrupt value raises ``CorruptRecordError`` unless ``on_corrupt`` is given,
        in which case it is called and the scan goes on with the next record.
        ``checked=False``: fields are not checked here, only when read (``codec.decode``).
        """
        spec = tree_of(prefix + ("x" if prefix.endswith("/") else ""))
        yield from self.scan_tree(spec, prefix, on_corrupt=on_corrupt, checked=checked)

    def scan_tree(self, spec: TreeSpec, prefix: str = "", *, on_corrupt: OnCorrupt | None = None,
                  include_hidden: bool = False, checked: bool = True,
                  ) -> Iterator[tuple[str, Record]]:
        """Like ``scan`` over a named tree; ``include_hidden`` also yields tombstones."""
        for raw_key, raw in self._stored(spec, prefix):
            key = raw_key.decode(errors="replace")
            try:
                rec = codec.decode(spec, key, raw, checked=checked)
                shown = include_hidden or codec.visible_at(spec, key, rec, self.now_ms)
                name = codec.full_key_of(spec, key, rec) if shown else key
            except CorruptRecordError as exc:
                if on_corrupt is None:
                    raise
                on_corrupt(exc)
                continue
            if shown:
                yield name, rec

    def _stored(self, spec: TreeSpec, prefix: str) -> Iterator[tuple[bytes, bytes]]:
        """``(LMDB key, stored bytes)`` of every record of ``spec``'s tree under ``prefix``."""
        if prefix:
            route(prefix, spec)
        start = prefix.encode()
        with self._txn.cursor(db=self._trees.dbs[spec.name]) as cursor:
            if not cursor.set_range(start):
                return
            for raw_key, raw in cursor:
                if not raw_key.startswith(start):
                    return
                yield raw_key, raw

    def get_encoded(self, key: str) -> bytes | None:
        """The stored bytes at ``key`` (hidden or not), undecoded: see ``decode_stored``."""
        raw = self._txn.get(lmdb_key(key), db=self._trees.dbs[tree_of(key).name])
        return None if raw is None else bytes(raw)

    def scan_encoded(self, spec: TreeSpec, prefix: str = "") -> Iterator[tuple[str, bytes]]:
        """Every record of ``spec``'s tree under ``prefix`` as ``(key, stored bytes)``, in
        key order, hidden ones included and none decoded: for a caller that decodes only
        some of them, or elsewhere (``decode_stored``; bytes, unlike records, are cheap to
        hand to another process)."""
        for raw_key, raw in self._stored(spec, prefix):
            key = raw_key.decode(errors="replace")
            if may_be_hashed(raw_key):
                key = _full_key(spec, key, raw)
            yield key, raw

    def heads(self, spec: TreeSpec, prefix: str) -> Iterator[str]:
        """The names ``N`` (holding no ``/``) with a record at ``prefix + N`` in ``spec``'s
        tree, hidden ones included, in key order: one cursor jump over each subtree
        ``prefix + N + "/"``, not a scan of its records (a store's repositories are its
        ``repo/{id}`` roots; scanning every file node for them cost each command ~20 ms
        on Django)."""
        start = prefix.encode()
        with self._txn.cursor(db=self._trees.dbs[spec.name]) as cursor:
            found = cursor.set_range(start)
            while found:
                raw_key = bytes(cursor.key())
                if not raw_key.startswith(start):
                    return
                name, slash, _ = raw_key[len(start):].partition(b"/")
                if slash:  # inside N's subtree: jump past it ("0" follows "/")
                    found = cursor.set_range(start + name + b"0")
                else:
                    yield name.decode(errors="replace")
                    found = cursor.next()

    def generation(self, tree: str) -> int:
        """``Trees.generation`` of ``tree`` as this snapshot sees it."""
        return self.get_local(GENERATIONS, {}).get(tree, 0)

    def get_local(self, name: str, default: Any = None) -> Any:
        """A store-local value, or ``default``."""
        raw = self._txn.get(name.encode(), db=self._trees.dbs[LOCAL_TREE])
        return default if raw is None else codec.decode_local(name, raw)

    def local_names(self, prefix: str) -> Iterator[str]:
        """Names of the store-local values starting with ``prefix``, in order."""
        start = prefix.encode()
        with self._txn.cursor(db=self._trees.dbs[LOCAL_TREE]) as cursor:
            if not cursor.set_range(start):
                return
            for raw_key in cursor.iternext(keys=True, values=False):
                if not raw_key.startswith(start):
                    return
                yield raw_key.decode()


class Trees:
    """Every named tree of one LMDB environment."""

    def __init__(self, path: Path, *, map_size: int = DEFAULT_MAP_SIZE,
                 readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        self.env, self.dbs = open_env(path, map_size=map_size, readonly=readonly)
        self.writes = 0
        """Records written through this handle (an unchanged re-index adds none)."""
        self.commits = 0
        self.before_commit: Callable[[Batch], None] | None = None
        """Called inside every batch that wrote records, just before it commits."""

    @contextmanager
    def snapshot(self, now_ms: int | None = None) -> Iterator[Snapshot]:
        """A consistent read view; ``now_ms`` fixes the time used to hide expired records."""
        with lmdb_errors():
            txn = self.env.begin(write=False)
        try:
            yield Snapshot(self, txn, wall_ms() if now_ms is None else now_ms)
        finally:
            txn.abort()

    def get(self, key: str) -> Record | None:
        """The visible record at ``key``, or None."""
        with self.snapshot() as snap:
            return snap.get(key)

    def scan(self, prefix: str, *, on_corrupt: OnCorrupt | None = None) -> list[tuple[str, Record]]:
        """Visible records under ``prefix`` in key order (materialised)."""
        with self.snapshot() as snap:
            return list(snap.scan(prefix, on_corrupt=on_corrupt))

    def get_local(self, name: str, default: Any = None) -> Any:
        """A store-local value, or ``default``."""
        with self.snapshot() as snap:
            return snap.get_local(name, default)

    @contextmanager
    def batch(self) -> Iterator[Batch]:
        """A write transaction: everything in the block commits together, or nothing."""
        if self.readonly:
            raise StoreReadOnlyError(
                f"the store at {self.path.parent} is open read-only (a read-only disk, or "
                "no write permission): this needs to write to it; reading tools still work")
        batch = Batch(self)
        try:
            yield batch
            due = []
            if batch.written:
                due = self._count_writes(batch)
                if self.before_commit is not None:
                    self.before_commit(batch)
                batch.log_changes()
            batch.commit()
        except BaseException:
            batch.discard()
            raise
        written = sum(batch.written.values())
        self.writes += written
        self.commits += 1 if written else 0
        if due:
            from .compaction import compact

            compact(self, names=due)

    def merge(self, key: str, delta: Record) -> None:
        """Read-merge-write one record in its own transaction."""
        with self.batch() as b:
            b.merge(key, delta)

    @staticmethod
    def _count_writes(batch: Batch) -> list[str]:
        """Count the batch's reapable writes per tree (in the same transaction); name the
        trees now due for compaction, and bump the generation of every tree written."""
        counts = batch.get_local(REAPABLE_WRITES, {})
        due = []
        for name, n in batch.reapable.items():
            counts[name] = counts.get(name, 0) + n
            if counts[name] >= BY_NAME[name].compaction_trigger:
                due.append(name)
                counts[name] = 0
        if batch.reapable:
            batch.put_local(REAPABLE_WRITES, counts)
        generations = batch.get_local(GENERATIONS, {})
        for name in batch.written:
            generations[name] = generations.get(name, 0) + 1
        batch.put_local(GENERATIONS, generations)
        return due

    def generation(self, tree: str) -> int:
        """Record-writing batches that have touched ``tree`` so far (never reset).

        Whoever derived something from a tree at generation ``g`` knows the tree is
        unchanged, by any writer in any process, while it still reads ``g``.
        """
        with self.snapshot() as snap:
            return snap.generation(tree)

    def stats(self) -> list[TreeStats]:
        """Records and bytes per named tree."""
        out = []
        with lmdb_errors(), self.env.begin() as txn:
            for spec in (*TREES, BY_LOCAL):
                db = self.dbs.get(spec.name)
                if db is None:
                    out.append(TreeStats(spec.name, 0, 0))
                    continue
                s = txn.stat(db)
                pages = s["branch_pages"] + s["leaf_pages"] + s["overflow_pages"]
                out.append(TreeStats(spec.name, s["entries"], pages * s["psize"]))
        return out

    def backup(self, dest: Path, drop_local: Sequence[str] = (), subdir: str = "",
               ) -> BackupReport:
        """Write a compact, verified copy of the environment into ``dest / subdir``
        (``dest`` a new directory), without the store-local names ``drop_local``
        (``trees/backup``)."""
        from .backup import backup

        return backup(self.env, self.dbs, dest, drop_local, subdir)

    def close(self) -> None:
        """Close the environment."""
        self.env.close()


def check_stored(key: str, rec: Record) -> Record:
    """``rec``, read at ``key`` by a scan with ``checked=False``, once every field is
    checked; raises ``CorruptRecordError`` naming the tree and key."""
    return codec.check(tree_of(key), key, rec)


def decode_stored(key: str, raw: bytes) -> Record:
    """The record of stored bytes read at ``key`` (``Snapshot.scan_encoded``), hidden or
    not; raises ``CorruptRecordError`` naming the tree and key."""
    return codec.decode(tree_of(key), key, raw)


def _full_key(spec: TreeSpec, key: str, raw: bytes) -> str:
    """The full key a record stored under a (maybe) hashed LMDB key holds, else ``key``."""
    try:
        return record.full_key(codec.decode(spec, key, raw)) or key
    except CorruptRecordError:
        return key  # the caller's decode reports it


BY_LOCAL = TreeSpec(LOCAL_TREE, (), grace_ms=None, compaction_trigger=None, replicated=False)
