"""reconcile/xref_journal — reverse-edge changes, journaled then applied once per name.

A popular name (``isinstance``, ``ValueError``) has thousands of dependents; updating
its record once per edge would rewrite the whole set each time. Instead each batch
appends its edge changes to a journal in the store-local tree, in the same
transaction as the symbol records they derive from, and the end of the pass nets the
journal and rewrites each cross-reference record once. Applying an entry is
idempotent (add if absent, remove if present), so a crash anywhere — before,
during or after the application — is healed by replaying what is left.
"""

from __future__ import annotations

from collections import defaultdict

from repoctx.store import Store
from repoctx.trees import Batch

from . import xref_record

EdgeOp = tuple[str, str, str, int]  # (relation, referenced name, symbol, +1 add / -1 remove)


def journal_prefix(repo_id: str) -> str:
    """Where a repository's pending edge changes live in the store-local tree."""
    return f"xref-journal/{repo_id}/"


def append(batch: Batch, store: Store, ops: list[EdgeOp]) -> str | None:
    """Journal ``ops`` inside ``batch`` (ordered by a fresh tick); returns the entry's key."""
    if not ops:
        return None
    key = f"{journal_prefix(store.repo_id)}{store.tick():020d}"
    batch.put_local(key, ops)
    return key


def apply_pending(store: Store, ops: list[EdgeOp] = (), written: set[str] = frozenset(),
                  keys_per_batch: int = 2000) -> int:
    """Apply and clear the journal; returns how many edges changed.

    ``ops`` are the entries this pass journaled under the keys ``written``, already in
    memory: only entries left by an interrupted earlier pass are read back.
    """
    prefix = journal_prefix(store.repo_id)
    with store.snapshot() as snap:
        keys = list(snap.local_names(prefix))
        older = [snap.get_local(k) for k in keys if k not in written]
    if not keys:
        return 0
    final: dict[str, dict[str, dict[str, int]]] = defaultdict(dict)
    for entry in (*older, ops):  # in journal order: the last change to an edge wins
        for relation, name, symbol, sign in entry:
            final[name].setdefault(relation, {})[symbol] = sign
    by_name = {name: {relation: ({s for s, v in signs.items() if v > 0},
                                 {s for s, v in signs.items() if v < 0})
                      for relation, signs in relations.items()}
               for name, relations in final.items()}
    changed = [0]
    names = sorted(by_name)
    for start in range(0, len(names), keys_per_batch):
        with store.batch() as batch:
            for name in names[start:start + keys_per_batch]:
                _apply_name(store, batch, name, by_name[name], changed)
    with store.batch() as batch:
        for key in keys:
            batch.delete_local(key)
    return changed[0]


def _apply_name(store: Store, batch: Batch, name: str,
                changes: dict[str, tuple[set[str], set[str]]], changed: list[int]) -> None:
    tick = store.tick()

    def make(current):
        delta, count = xref_record.change_delta(current, changes, tick, store.replica_id)
        changed[0] += count if delta is not None else 0
        return delta

    batch.update(store.key("xref", name), make)
