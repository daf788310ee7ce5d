"""sync/receive — merge records that came from another replica: check, merge, re-derive.

Each incoming record is checked before it touches the store: its tree must be a
replicated one, its key must route to that tree, and its bytes must decode and
``record.validate`` (a corrupt record is rejected and named by tree and key; the
rest of the shipment goes on). It is then re-encoded canonically (fields in name
order, every field re-encoded), so byte-identity never depends on how a peer packed
its maps. A record its tree's compaction would already reap is not brought back.
Merging is the ordinary read-merge-write (``Batch.merge``), a chunk per transaction,
so an interrupted exchange keeps every whole chunk and loses nothing else.

The cross-reference tree is derived from symbol records: for every symbol record the
merge changed, the reverse edges of the record before and after are diffed and the
difference journaled in the same transaction (``reconcile.xref_journal``), applied
once at the end. The local clock observes every incoming tick (the HLC receive rule).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from repoctx import vectors
from repoctx.crdt import module_for_tag, record, wall_ms
from repoctx.crdt.record import Record
from repoctx.errors import CorruptRecordError, CrdtError, InvalidKeyError, WrongTreeError
from repoctx.reconcile import edges, xref_journal
from repoctx.reconcile.nodes import symbol_record
from repoctx.store import Store
from repoctx.trees import BY_NAME, Batch, TreeSpec, lmdb_key, parse_key, reapable, tree_of
from repoctx.trees import codec as tree_codec

SYMBOL_TREE = "repo-context-symbol"
MEMBERSHIP_TREE = "repo-context-vector-membership"
CHUNK = 500
"""Records merged per write transaction."""

Item = tuple[str, str, bytes]  # (tree, LMDB key, stored bytes)


@dataclass
class Received:
    """What a shipment did to the store."""

    merged: int = 0
    """Records that changed the store."""
    unchanged: int = 0
    """Records the store already held (or would reap at once)."""
    rejected: list[CorruptRecordError] = field(default_factory=list)
    """Records refused, each naming its tree and key."""
    symbols: int = 0
    """Symbol records whose reverse edges were re-derived."""

    def add(self, other: Received) -> None:
        """Fold another shipment's counts into this one."""
        self.merged += other.merged
        self.unchanged += other.unchanged
        self.rejected += other.rejected
        self.symbols += other.symbols


def canonical(rec: Record) -> Record:
    """The record with every field re-encoded from its decoded state, in name order."""
    out = {}
    for name in sorted(rec.fields):
        module = module_for_tag(rec.fields[name][0])
        out[name] = module.encode(module.decode(rec.fields[name]))
    return Record(out)


def check(tree: str, key: str, raw: bytes) -> tuple[TreeSpec, str, Record]:
    """The tree, merge key and canonical record of an incoming item; raises
    ``CorruptRecordError`` (naming tree and key) when it must be refused."""
    spec = BY_NAME.get(tree)
    if spec is None or not spec.replicated:
        raise CorruptRecordError(str(tree), str(key), "not a replicated tree")
    if not isinstance(key, str) or not isinstance(raw, bytes):
        raise CorruptRecordError(tree, repr(key), "a record is a key string and bytes")
    try:
        parse_key(key)
        if tree_of(key) is not spec:
            raise WrongTreeError(f"{key!r} does not belong in {tree}")
        rec = tree_codec.decode(spec, key, raw)
        record.validate(rec)
        rec = canonical(rec)
    except (CrdtError, InvalidKeyError, WrongTreeError) as exc:
        raise CorruptRecordError(tree, key, str(exc)) from exc
    full = record.full_key(rec) or key
    if lmdb_key(full).decode(errors="replace") != key:
        raise CorruptRecordError(tree, key, f"the record names another key, {full!r}")
    return spec, full, rec


def receive(store: Store, items: Iterable[Item], *, chunk: int = CHUNK) -> Received:
    """Check and merge ``items`` into ``store``, a transaction per ``chunk``; then apply the
    journaled reverse-edge changes."""
    total = Received()
    pending: list[Item] = []
    for item in items:
        pending.append(item)
        if len(pending) >= chunk:
            total.add(_receive_chunk(store, pending))
            pending = []
    if pending:
        total.add(_receive_chunk(store, pending))
    if total.symbols:
        xref_journal.apply_pending(store)
    return total


def _receive_chunk(store: Store, items: list[Item]) -> Received:
    out = Received()
    now = wall_ms()
    with store.batch() as batch:
        ops: list[xref_journal.EdgeOp] = []
        membership: set[str] = set()  # repositories whose vector membership changed
        for tree, key, raw in items:
            try:
                spec, full, rec = check(tree, key, raw)
            except CorruptRecordError as exc:
                out.rejected.append(exc)
                continue
            store.clock.observe(record.tick(rec))
            if spec.grace_ms is not None and reapable(rec, now, spec.grace_ms):
                out.unchanged += 1  # compaction would reap it at once: do not resurrect
                continue
            if _merge(batch, spec, full, rec, ops):
                out.merged += 1
                out.symbols += spec.name == SYMBOL_TREE
                if spec.name == MEMBERSHIP_TREE:
                    membership.add(parse_key(full).repo_id)
            else:
                out.unchanged += 1
        xref_journal.append(batch, store, ops)
        for repo_id in sorted(membership):
            # the coverage digest mirrors membership; what arrived behind the back-fill's
            # back makes it unbuilt, and the next gap scan rebuilds it (digest ⊆ membership)
            vectors.records.coverage.invalidate(batch, repo_id, store.tick(), store.replica_id)
    return out


def _merge(batch: Batch, spec: TreeSpec, key: str, rec: Record,
           ops: list[xref_journal.EdgeOp]) -> bool:
    """Merge one record; journal its reverse-edge changes if it is a symbol. True if written."""
    before_writes = batch.written.get(spec.name, 0)
    before = batch.get(key) if spec.name == SYMBOL_TREE else None
    batch.merge(key, rec)
    if batch.written.get(spec.name, 0) == before_writes:
        return False
    if spec.name == SYMBOL_TREE:
        fq = parse_key(key).rest
        old = edges(fq, symbol_record.declarations(before))
        new = edges(fq, symbol_record.declarations(batch.get(key)))
        ops += [(relation, name, fq, 1) for relation, name in sorted(new - old)]
        ops += [(relation, name, fq, -1) for relation, name in sorted(old - new)]
    return True
