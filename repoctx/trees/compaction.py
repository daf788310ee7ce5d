"""trees/compaction — reap tombstones and expired records past their tree's grace.

Runs per tree in write transactions of bounded size, so a large reap neither holds
the writer lock long nor grows one transaction without bound. Deletions from a
replicated tree update its digests and the change log in the same transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import lmdb

from repoctx.crdt import wall_ms

from .changelog import Changes, in_write_txn, keeps_digests
from .keys import lmdb_key
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
        with trees.snapshot(now_ms=now) as snap:
            doomed = [key for key, rec in snap.scan_tree(spec, include_hidden=True,
                                                         on_corrupt=lambda exc: None)
                      if reapable(rec, now, spec.grace_ms)]
        for start in range(0, len(doomed), _CHUNK):
            chunk = doomed[start:start + _CHUNK]
            in_write_txn(trees, lambda txn, t, c=chunk, s=spec: _reap(txn, t, s, c))
        reaped[spec.name] = len(doomed)
    return reaped


def _reap(txn: lmdb.Transaction, trees: Trees, spec: TreeSpec, keys: list[str]) -> None:
    """Delete ``keys``, folding each deletion into the change log and digests."""
    db, changes = trees.dbs[spec.name], Changes()
    logging = spec.replicated and keeps_digests(txn, trees.dbs[LOCAL_TREE])
    for key in keys:
        lkey = lmdb_key(key)
        raw = txn.get(lkey, db=db)
        if raw is not None and txn.delete(lkey, db=db) and logging:
            changes.note(spec.name, lkey, raw, None)
    changes.flush(txn, trees.dbs[LOCAL_TREE])
