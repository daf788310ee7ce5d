"""trees/batch — read-merge-write in one LMDB write transaction, all or nothing.

Operations apply at once to an open write transaction (so later operations read
earlier ones) and are logged; if the map fills, the transaction is aborted, the map
grown and the log replayed, so callers never see ``MapFullError``. An exception in
the ``with`` block aborts everything. A merge that changes nothing writes nothing,
which is what makes an unchanged re-index write zero records. Every write to a
replicated tree is noted in ``changes`` and folded into the change log and digests
(``changelog``) by the last operation before the commit, in the same transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import lmdb
import msgpack

from repoctx.crdt import lww_register, record
from repoctx.crdt.record import Record
from repoctx.errors import CorruptRecordError

from . import codec
from .changelog import Changes, keeps_digests
from .keys import MAX_KEY_BYTES, lmdb_key, tree_of
from .lmdb_env import adopt_size, error_for, grow, lmdb_errors
from .spec import LOCAL_TREE, TreeSpec

if TYPE_CHECKING:
    from .trees import Trees

Update = Callable[[Record | None], Record | None]
_MAX_GROWTHS = 40
_RECORD_OPS = frozenset({"merge", "update"})


class Batch:
    """A write transaction in progress; use through ``Trees.batch()``."""

    def __init__(self, trees: Trees) -> None:
        self._trees = trees
        self._log: list[tuple[str, Any, Any]] = []
        self._txn: lmdb.Transaction | None = None
        self._cursors: dict[str, lmdb.Cursor] = {}
        """One cursor per tree name in the open transaction: a cursor's get and put cost
        half a transaction's (no keyword parsing per call), and every record needs both."""
        self.written: dict[str, int] = {}
        """Records written per tree by this batch."""
        self.reapable: dict[str, int] = {}
        """Of those, per tree with a compaction trigger, the tombstones and expiring records
        written: what compaction may reap one day, and all that brings it closer."""
        self.repaired: list[CorruptRecordError] = []
        """Corrupt stored values this batch replaced instead of merging."""
        self.changes = Changes()
        """Digest deltas and changed keys of replicated trees, flushed by ``log_changes``."""
        self._logging = False
        """Whether this store keeps replication digests (read inside the transaction)."""

    def merge(self, key: str, delta: Record) -> Record | None:
        """Merge ``delta`` into the record at ``key``; returns the record now stored."""
        return self._run(("merge", key, delta))

    def update(self, key: str, fn: Update) -> Record | None:
        """Merge ``fn(current)`` into ``key``; ``fn`` sees tombstones too and may return None.

        Returns the record now stored (None when there is none). ``fn`` must depend only
        on its argument: it runs again if the batch is replayed.
        """
        return self._run(("update", key, fn))

    def put_local(self, name: str, value: Any) -> None:
        """Set a store-local value (never replicated, never merged)."""
        self._run(("local", name, value))

    def delete_local(self, name: str) -> None:
        """Remove a store-local value."""
        self._run(("unlocal", name, None))

    def log_changes(self) -> None:
        """Fold this batch's writes into the change log and digests (``Trees.batch`` calls it)."""
        self._run(("changes", None, None))

    def get_local(self, name: str, default: Any = None) -> Any:
        """A store-local value as this batch sees it."""
        with lmdb_errors():
            raw = self._begin().get(name.encode(), db=self._trees.dbs[LOCAL_TREE])
        return default if raw is None else codec.decode_local(name, raw)

    def get(self, key: str) -> Record | None:
        """The record at ``key`` as this batch sees it (tombstones included)."""
        spec = tree_of(key)
        raw = self._begin().get(lmdb_key(key), db=self._trees.dbs[spec.name])
        return self._decode(spec, key, raw)

    def _run(self, op: tuple[str, Any, Any]) -> Record | None:
        self._log.append(op)
        # A plain try rather than ``lmdb_errors()``: this runs once per record, and a
        # generator-based context manager costs as much as the LMDB put it guards.
        try:
            return self._apply(self._begin() if self._txn is None else self._txn, op)
        except lmdb.MapFullError:
            with lmdb_errors():
                self._replay()
            return self.get(op[1]) if op[0] in _RECORD_OPS else None
        except lmdb.Error as exc:
            raise error_for(exc, self._trees.path) from exc

    def _begin(self) -> lmdb.Transaction:
        if self._txn is None:
            with lmdb_errors():
                try:
                    self._txn = self._trees.env.begin(write=True)
                except lmdb.MapResizedError:
                    adopt_size(self._trees.env)
                    self._txn = self._trees.env.begin(write=True)
            # Replication is configuration: digests are kept only once a first sync has
            # built them. Read here, in the write transaction, so a store whose first sync
            # happens while this process runs is logged from its next batch on.
            self._logging = keeps_digests(self._txn, self._trees.dbs[LOCAL_TREE])
            self._cursors = {}
        return self._txn

    def _replay(self) -> None:
        for _ in range(_MAX_GROWTHS):
            self._abort()
            grow(self._trees.env)
            self.written.clear()
            self.reapable.clear()
            self.repaired.clear()
            self.changes.reset()
            try:
                txn = self._begin()
                for op in self._log:
                    self._apply(txn, op)
                return
            except lmdb.MapFullError:
                continue
        raise lmdb.MapFullError("map still full after growing it 40 times")

    def _decode(self, spec: TreeSpec, key: str, raw: bytes | None) -> Record | None:
        if raw is None:
            return None
        try:
            return codec.decode(spec, key, raw)
        except CorruptRecordError as exc:
            # The stored bytes are already lost; the incoming delta replaces them and
            # the reconcile's markers bring back whatever else the record held.
            self.repaired.append(exc)
            return None

    def _apply(self, txn: lmdb.Transaction, op: tuple[str, Any, Any]) -> Record | None:
        kind, key, arg = op
        if kind not in _RECORD_OPS:
            self._apply_local(txn, kind, key, arg)
            return None
        spec = tree_of(key)
        lkey = key.encode()
        hashed = len(lkey) > MAX_KEY_BYTES
        if hashed:
            lkey = lmdb_key(key)
        cursor = self._cursors.get(spec.name)
        if cursor is None:
            cursor = self._cursors[spec.name] = txn.cursor(db=self._trees.dbs[spec.name])
        raw = cursor.get(lkey)
        current = None if raw is None else self._decode(spec, key, raw)
        delta = arg if kind == "merge" else arg(current)
        if delta is None:
            return current
        if hashed:
            full = lww_register.encode(lww_register.LwwRegister(0, "", key))
            delta = record.merge(delta, Record({record.KEY: full}))
        merged = delta if current is None else record.merge(current, delta)
        if merged is current:  # record.merge returns its first argument when nothing changed
            return current
        encoded = codec.encode_plain(spec, merged)
        cursor.put(lkey, codec.pack(spec, encoded))
        if self._logging and spec.replicated:
            self.changes.note(spec.name, lkey, raw, encoded)
        written = self.written
        written[spec.name] = written.get(spec.name, 0) + 1
        if spec.compaction_trigger is not None and (
                record.EXPIRES in merged.fields or record.is_tombstone(merged)):
            self.reapable[spec.name] = self.reapable.get(spec.name, 0) + 1
        return merged

    def _apply_local(self, txn: lmdb.Transaction, kind: str, name: str, value: Any) -> None:
        local = self._trees.dbs[LOCAL_TREE]
        if kind == "local":
            txn.put(name.encode(), msgpack.packb(value), db=local)
        elif kind == "unlocal":
            txn.delete(name.encode(), db=local)
        else:
            self.changes.flush(txn, local)

    def commit(self) -> None:
        """Commit everything applied (nothing happens when nothing was written)."""
        if self._txn is None:
            self._log.clear()
            return
        if not self.written and not any(op[0] in ("local", "unlocal") for op in self._log):
            self.discard()
            return
        try:
            with lmdb_errors(self._trees.path):
                try:
                    self._txn.commit()
                except lmdb.MapFullError:
                    self._txn = None  # a failed commit has already freed the transaction
                    self._replay()
                    self._txn.commit()
        except Exception:
            self.discard()
            raise
        self._txn = None
        self._log.clear()

    def discard(self) -> None:
        """Abandon the transaction and the replay log.

        The log's update functions often close over whoever holds this batch, which holds
        the batch: dropping it breaks that cycle, so a batch's garbage is freed at once
        instead of waiting for (and costing) the cyclic collector.
        """
        self._abort()
        self._log.clear()

    def _abort(self) -> None:
        if self._txn is not None:
            self._txn.abort()
            self._txn = None
