"""Shared by the sync tests: memory-like and session-like records, raw tree dumps."""

from __future__ import annotations

import zlib
from pathlib import Path

from repoctx import open_store
from repoctx.crdt import add_wins_set, lww_register, max_register, record, ttl_set
from repoctx.crdt.record import Record
from repoctx.store import Store
from repoctx.sync import LocalTransport, Responder, ensure_digests, sync
from repoctx.trees import TREES, changelog

REPLICATED = [t.name for t in TREES if t.replicated]


def new_store(root: Path, replica: str, repo_id: str = "demo") -> Store:
    """A store that keeps its digests from the start, as one that has synced before."""
    store = open_store(root, repo_id=repo_id, replica_id=replica)
    ensure_digests(store)
    return store


def raw_trees(store: Store) -> dict[str, list[tuple[bytes, bytes]]]:
    """Every replicated tree as raw LMDB (key, value) bytes, in key order."""
    with store.trees.env.begin() as txn:
        return {name: [(bytes(k), bytes(v)) for k, v in txn.cursor(db=store.trees.dbs[name])]
                for name in REPLICATED}


def canonical_trees(store: Store) -> dict[str, list[tuple[bytes, bytes]]]:
    """``raw_trees`` with every value as its canonical (decompressed) encoding: replicas may
    store one record compressed or plain, and must agree on this."""
    return {name: [(k, changelog.canonical(v)) for k, v in rows]
            for name, rows in raw_trees(store).items()}


def recode(store: Store, mode: int) -> None:
    """Rewrite every stored record of ``store`` in another encoding, as a store written by
    another version would hold it (0: plain, as format 1; 1 and 2: compressed at zlib
    levels 1 and 9), straight into LMDB and leaving the digests as they are: they describe
    canonical encodings, which this does not change."""
    with store.trees.env.begin(write=True) as txn:
        for name in REPLICATED:
            db = store.trees.dbs[name]
            rows = [(bytes(k), changelog.canonical(v)) for k, v in txn.cursor(db=db)]
            for k, plain in rows:
                packed = b"\xc1" + zlib.compress(plain, 1 if mode == 1 else 9)
                txn.put(k, plain if mode == 0 else packed, db=db)


def remember(store: Store, key: str, body: str, tags: set[str]) -> dict:
    """Write a memory-like record (LWW body + add-wins tags) from the current state.

    Returns what the write did: its tick, replica and the dots it added."""
    tick = store.tick()
    info: dict = {"tick": tick, "replica": store.replica_id, "dots": {}, "removed": set()}

    def make(cur: Record | None) -> Record:
        state = record.field_state(cur, "tags", add_wins_set)
        delta = add_wins_set.add_all(state, tags, store.replica_id)
        info["dots"] = {t: dots[0] for t, dots in delta.entries.items()}
        info["removed"] = {d for t in tags for d in state.entries.get(t, ())}
        body_reg = lww_register.set_value(lww_register.empty(), body, tick, store.replica_id)
        return record.write({"body": body_reg, "tags": delta}, tick)

    with store.batch() as b:
        b.update(key, make)
    return info


def untag(store: Store, key: str, tags: set[str] | None = None) -> set:
    """Remove observed tags (all when ``tags`` is None); returns the dots removed."""
    removed: set = set()

    def make(cur: Record | None) -> Record | None:
        state = record.field_state(cur, "tags", add_wins_set)
        present = set(state.entries) if tags is None else set(tags) & set(state.entries)
        if not present:
            return None
        removed.update(d for t in present for d in state.entries[t])
        return record.write({"tags": add_wins_set.remove_all(state, present)}, store.tick())

    with store.batch() as b:
        b.update(key, make)
    return removed


def forget(store: Store, key: str) -> tuple[int, set]:
    """Empty a memory-like record (body None, tags removed): a tombstone."""
    tick = store.tick()
    removed = untag(store, key)
    reg = lww_register.set_value(lww_register.empty(), None, tick, store.replica_id)
    with store.batch() as b:
        b.merge(key, record.write({"body": reg}, tick))
    return tick, removed


def session_write(store: Store, key: str, element: str, expires_ms: int) -> None:
    """A session-like record: a TtlSet element and a record expiry."""
    with store.batch() as b:
        b.merge(key, record.write({
            "receipts": ttl_set.add(ttl_set.empty(), element, expires_ms),
            record.EXPIRES: max_register.MaxRegister(expires_ms)}, store.tick()))


def exchange(a: Store, b: Store, **kwargs):
    """Sync ``a`` with ``b`` in-process (both already open)."""
    transport = LocalTransport(Responder(b), str(b.path), closing=False)
    return sync(a, transport, **kwargs)


def settle(stores: list[Store], rounds: int = 8) -> int:
    """All-to-all exchanges until one round ships nothing; returns the rounds it took."""
    for n in range(1, rounds + 1):
        shipped = 0
        for i, a in enumerate(stores):
            for b in stores[i + 1:]:
                r = exchange(a, b)
                assert r.complete
                shipped += r.sent + r.received
        if not shipped:
            return n
    raise AssertionError(f"still shipping records after {rounds} all-to-all rounds")
