"""reconcile/xref_journal — reverse-edge changes, journaled then applied once per name.

A popular name (``isinstance``, ``ValueError``) has thousands of dependents; updating
its record once per edge would rewrite the whole set each time. Instead each batch
appends its edge changes to a journal in the store-local tree, in the same
transaction as the symbol records they derive from; the pass folds each entry into
memory as it goes (``fold``), and at its end rewrites each cross-reference record
once. Applying an entry is idempotent (add if absent, remove if present), so a crash
anywhere — before, during or after the application — is healed by replaying what is
left.

An entry is stored zlib-compressed (msgpack of its ops, level 1): the journal of a cold
pass is as big as the cross-reference tree it becomes (22 MB on Django), and once applied
its pages are free pages the LMDB file keeps (a fifth of Django's LMDB);
compressed, 4.5 MB. An entry of an older writer (a plain list) is still read.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any

import msgpack

from repoctx.crdt.record import Record
from repoctx.reconcile.nodes import xref_record
from repoctx.store import Store
from repoctx.trees import Batch

if TYPE_CHECKING:
    from concurrent.futures import Executor

EdgeOp = tuple[str, str, str, int]  # (relation, referenced name, symbol, +1 add / -1 remove)
Changes = dict[str, dict[str, dict[str, int]]]
"""Folded edge changes: name -> relation -> symbol -> +1 / -1 (the last change to an edge)."""
PACK_LEVEL = 1
"""zlib level of a journal entry (compressed in the writer: level 1 is the cheapest)."""


def journal_prefix(repo_id: str) -> str:
    """Where a repository's pending edge changes live in the store-local tree."""
    return f"xref-journal/{repo_id}/"


def append(batch: Batch, store: Store, ops: list[EdgeOp]) -> str | None:
    """Journal ``ops`` inside ``batch`` (ordered by a fresh tick); returns the entry's key."""
    if not ops:
        return None
    key = f"{journal_prefix(store.repo_id)}{store.tick():020d}"
    batch.put_local(key, pack_ops(ops))
    return key


def pack_ops(ops: list[EdgeOp]) -> bytes:
    """The stored form of a journal entry: msgpack of its ops, zlib-compressed."""
    return zlib.compress(msgpack.packb(ops), PACK_LEVEL)


def unpack_ops(stored: Any) -> list[EdgeOp]:
    """A journal entry's ops from its stored form (or an older writer's plain list)."""
    if isinstance(stored, bytes):
        return [tuple(op) for op in msgpack.unpackb(zlib.decompress(stored))]
    return stored


def fold(changes: Changes, ops: Iterable[EdgeOp]) -> None:
    """Fold ``ops`` into ``changes`` (later ops win over earlier ones for the same edge)."""
    for relation, name, symbol, sign in ops:
        by_relation = changes.get(name)
        if by_relation is None:
            by_relation = changes[name] = {}
        signs = by_relation.get(relation)
        if signs is None:
            signs = by_relation[relation] = {}
        signs[symbol] = sign


def pending(store: Store, into: Changes | None = None, skip: Collection[str] = frozenset(),
            ) -> tuple[set[str], Changes]:
    """The journal's keys, and its entries (less those under ``skip``) folded in journal
    order into ``into`` (a new map unless given)."""
    changes: Changes = {} if into is None else into
    with store.snapshot() as snap:
        keys = list(snap.local_names(journal_prefix(store.repo_id)))
        for key in keys:
            if key not in skip:
                fold(changes, unpack_ops(snap.get_local(key)))
    return set(keys), changes


POOL_NAMES = 1000
"""Fewer names than this are not worth shipping to a pool."""

_Job = tuple[Record | None, dict[str, dict[str, int]], int]  # current, signs by relation, tick


def apply_pending(store: Store, changes: Changes | None = None, known: set[str] = frozenset(),
                  keys_per_batch: int = 2000, pool: Executor | None = None) -> int:
    """Apply and clear the journal; returns how many edges changed.

    ``changes`` are the entries under the keys ``known`` already folded in memory (a
    pass folds what it finds at its start, then what it journals); entries under other
    keys are read back and folded after them. With a ``pool``, a large journal's deltas
    are computed there while this process writes.
    """
    keys, changes = pending(store, changes, known)
    if not keys:
        return 0
    if len(changes) < POOL_NAMES:
        pool = None
    changed = 0
    names = sorted(changes)
    for start in range(0, len(names), keys_per_batch):
        chunk = [(name, store.key("xref", name)) for name in names[start:start + keys_per_batch]]
        with store.batch() as batch:
            jobs = [(batch.get(key), changes[name], store.tick()) for name, key in chunk]
            for (_, key), (delta, count) in zip(chunk, _deltas(jobs, store.replica_id, pool),
                                                strict=True):
                if delta is not None:
                    batch.merge(key, delta)
                    changed += count
    with store.batch() as batch:
        for key in keys:
            batch.delete_local(key)
    return changed


def _deltas(jobs: list[_Job], replica: str, pool: Executor | None,
            ) -> Iterator[tuple[Record | None, int]]:
    """The delta and edge count of every job, in order; spread over ``pool`` if given."""
    if pool is None:
        yield from _delta_chunk(replica, jobs)
        return
    size = max(1, len(jobs) // 8)  # a few chunks per worker: writing overlaps computing
    for chunk in pool.map(partial(_delta_chunk, replica),
                          [jobs[i:i + size] for i in range(0, len(jobs), size)]):
        yield from chunk


def _delta_chunk(replica: str, jobs: list[_Job]) -> list[tuple[Record | None, int]]:
    out = []
    for current, relations, tick in jobs:
        netted = {relation: ({s for s, v in signs.items() if v > 0},
                             {s for s, v in signs.items() if v < 0})
                  for relation, signs in relations.items()}
        out.append(xref_record.change_delta(current, netted, tick, replica))
    return out
