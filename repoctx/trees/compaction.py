"""trees/compaction — reap tombstones and expired records past their tree's grace.

Runs per tree in write transactions of bounded size, so a large reap neither holds
the writer lock long nor grows one transaction without bound. Deletions from a
replicated tree update its digests and the change log in the same transaction.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

import lmdb

from repoctx.crdt import wall_ms
from repoctx.crdt.codec import unpack
from repoctx.crdt.record import EXPIRES, Record, is_tombstone
from repoctx.crdt.schema import SCHEMA
from repoctx.errors import CorruptRecordError, CrdtError

from . import codec
from .changelog import Changes, in_write_txn, keeps_digests
from .lmdb_env import lmdb_errors
from .spec import BY_NAME, LOCAL_TREE, TREES, TreeSpec
from .visibility import reapable

if TYPE_CHECKING:
    from .trees import Trees

_CHUNK = 10_000


def compact(trees: Trees, *, now_ms: int | None = None, names: Iterable[str] | None = None,
            ) -> dict[str, int]:
    """Delete reapable records; returns how many were reaped per tree."""
    now = wall_ms() if now_ms is None else now_ms
    reaped: dict[str, int] = {}
    for spec in (BY_NAME[n] for n in names) if names is not None else TREES:
        if spec.grace_ms is None:
            continue
        doomed = _doomed(trees, spec, now, spec.grace_ms)
        for start in range(0, len(doomed), _CHUNK):
            chunk = doomed[start:start + _CHUNK]
            in_write_txn(trees, lambda txn, t, c=chunk, s=spec: _reap(txn, t, s, c))
        reaped[spec.name] = len(doomed)
    return reaped


def _doomed(trees: Trees, spec: TreeSpec, now: int, grace: int) -> list[bytes]:
    """The LMDB keys of the reapable records of ``spec``'s tree, corrupt ones skipped.

    A plain cursor over one read transaction rather than ``Snapshot.scan_tree``: this
    runs over the whole tree every ``compaction_trigger`` reapable writes, after the batch
    that crossed it, and needs neither the full key of a record nor its visibility.
    """
    doomed = []
    with lmdb_errors(), trees.env.begin() as txn:
        for lkey, raw in txn.cursor(db=trees.dbs[spec.name]):
            if _live(spec, raw):
                continue
            try:
                rec = codec.decode(spec, "", raw)
            except CorruptRecordError:
                continue  # a reader reports it; compaction leaves it to the next write
            if reapable(rec, now, grace):
                doomed.append(lkey)
    return doomed


def _live(spec: TreeSpec, raw: bytes) -> bool:
    """True when the stored map plainly holds a live record: no expiry, no upcast, some
    field not empty. Most records are, and this spares them the full decode (whose
    field checks matter only to what is reaped); anything else is decoded in full."""
    try:
        body = unpack(codec.plain(raw))
        return (type(body) is dict and EXPIRES not in body
                and body.get(SCHEMA) == spec.envelope and not is_tombstone(Record(body)))
    except (CrdtError, TypeError, ValueError, IndexError, zlib.error):
        return False


def _reap(txn: lmdb.Transaction, trees: Trees, spec: TreeSpec, lkeys: list[bytes]) -> None:
    """Delete ``lkeys``, folding each deletion into the change log and digests."""
    db, changes = trees.dbs[spec.name], Changes()
    logging = spec.replicated and keeps_digests(txn, trees.dbs[LOCAL_TREE])
    for lkey in lkeys:
        raw = txn.get(lkey, db=db)
        if raw is not None and txn.delete(lkey, db=db) and logging:
            changes.note(spec.name, lkey, raw, None)
    changes.flush(txn, trees.dbs[LOCAL_TREE])
