"""trees/changelog — the change log and the segment digests, kept in the writing transaction.

Every write transaction that changes a replicated tree also, in that same LMDB
transaction ("Change log and digests"):

- appends one change-log entry to the store-local tree: ``changes/{seq:016x}`` ->
  ``{tree: [key, ...]}`` (the LMDB keys it wrote or deleted; one entry per transaction,
  not per key, so the log costs one put per batch);
- folds every change into the tree's digests. A tree has ``BUCKETS`` buckets chosen
  by CRC-32 of the LMDB key; a bucket's digest is the XOR of ``pair_hash(key, bytes)``
  over the records it holds, so a write is O(1): XOR out the old pair, XOR in the new.
  Buckets are stored ``PER_SEGMENT`` to a segment blob at ``digest/{tree}/{seg:02x}``;
  segment hashes and the tree root are computed from the blobs when read (``sync``).

Converged replicas hold byte-identical values (canonical encodings), so equal
digests mean equal trees. What is hashed is a record's canonical encoding, not the
bytes LMDB holds: a stored record may be compressed (``codec.pack``, store format 2),
and two replicas holding one record compressed and plain must agree (``canonical``).
Replication is configuration (seed 003): ``digests`` in the local tree marks the
digests valid and switches their upkeep on; a store that never syncs pays nothing for
them, and its first sync (``rebuild_digests``) builds them. The log is bounded
(``LOG_CAP`` keys); a reader that fell behind the trimmed floor re-reads the whole store
instead. Only replicated trees are logged.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import lmdb
import msgpack

from repoctx.errors import StoreIOError

from .codec import plain
from .lmdb_env import adopt_size, grow, lmdb_errors
from .spec import LOCAL_TREE, TREES

if TYPE_CHECKING:
    from .trees import Snapshot, Trees

BUCKETS = 4096
PER_SEGMENT = 64
SEGMENTS = BUCKETS // PER_SEGMENT
HASH_BYTES = 16
SEGMENT_BYTES = PER_SEGMENT * HASH_BYTES
DIGESTS_VERSION = 1
LOG_CAP = 500_000
"""Keys the change log retains; older entries are trimmed, oldest first."""

MARKER = "digests"
HEAD = "changes-head"  # [next sequence, keys retained, first retained sequence]
LOG_PREFIX = "changes/"
REPLICATED = tuple(t.name for t in TREES if t.replicated)
_ZERO = bytes(SEGMENT_BYTES)
_MASK = (1 << (8 * HASH_BYTES)) - 1
_MAX_GROWTHS = 40
T = TypeVar("T")


def bucket_of(lkey: bytes) -> int:
    """The digest bucket of an LMDB key."""
    return zlib.crc32(lkey) & (BUCKETS - 1)


def canonical(raw: bytes) -> bytes:
    """The canonical encoding of a stored record (decompressed); bytes whose compressed
    stream is damaged are their own (a damaged record differs from any good one anyway)."""
    try:
        return plain(raw)
    except zlib.error:
        return bytes(raw)


def pair_hash(lkey: bytes, raw: bytes) -> int:
    """The 128-bit hash of one stored record (its LMDB key and its canonical encoding).

    The low 128 bits of SHA-256: the fastest cryptographic hash here (hardware SHA),
    and a non-linear one, so unrelated edits cannot cancel out in a bucket's XOR.
    """
    from hashlib import sha256  # here: OpenSSL's load is no cost of a process writing nothing

    return int.from_bytes(sha256(lkey + b"\0" + canonical(raw)).digest(), "big") & _MASK


def segment_name(tree: str, segment: int) -> str:
    """The local-tree name of one segment blob of ``tree``."""
    return f"digest/{tree}/{segment:02x}"


def log_name(seq: int) -> str:
    """The local-tree name of change-log entry ``seq`` (names sort by sequence)."""
    return f"{LOG_PREFIX}{seq:016x}"


class Changes:
    """The writes of one transaction to replicated trees, not yet folded in.

    ``note`` only remembers each key's first old and last new bytes (a batch may write
    a key several times); hashing waits for ``flush``, once per key.
    """

    __slots__ = ("pending",)

    def __init__(self) -> None:
        self.pending: dict[str, dict[bytes, list[bytes | None]]] = {}

    def note(self, tree: str, lkey: bytes, old: bytes | None, new: bytes | None) -> None:
        """Record that ``lkey`` of ``tree`` went from ``old`` to ``new`` bytes (None: absent),
        each stored or canonical bytes (``canonical`` is applied when folding)."""
        keys = self.pending.get(tree)
        if keys is None:
            keys = self.pending[tree] = {}
        seen = keys.get(lkey)
        if seen is None:
            keys[lkey] = [old, new]
        else:
            seen[1] = new

    def reset(self) -> None:
        """Forget everything noted (the transaction is being replayed)."""
        self.pending.clear()

    def flush(self, txn: lmdb.Transaction, local: Any) -> None:
        """Fold the noted writes into the digests and append one change-log entry; reset."""
        if not self.pending:
            return
        from hashlib import sha256  # here: no cost of a process that writes nothing

        by_segment: dict[tuple[str, int], dict[int, int]] = {}
        hash_, from_bytes, crc32 = sha256, int.from_bytes, zlib.crc32  # hot loop: bind once
        for tree, keys in self.pending.items():
            for lkey, (old, new) in keys.items():
                if old is not None:
                    old = canonical(old)
                if new is not None:
                    new = canonical(new)
                if old == new:
                    continue
                head = lkey + b"\0"  # as pair_hash, untruncated: folding masks the XOR
                delta = 0 if old is None else from_bytes(hash_(head + old).digest(), "big")
                if new is not None:
                    delta ^= from_bytes(hash_(head + new).digest(), "big")
                bucket = crc32(lkey) & (BUCKETS - 1)
                deltas = by_segment.get((tree, bucket // PER_SEGMENT))
                if deltas is None:
                    deltas = by_segment[(tree, bucket // PER_SEGMENT)] = {}
                deltas[bucket] = deltas.get(bucket, 0) ^ delta
        for (tree, segment), deltas in by_segment.items():
            _fold(txn, local, segment_name(tree, segment).encode(), deltas)
        entry = {tree: sorted(k.decode() for k in keys) for tree, keys in self.pending.items()}
        _append(txn, local, entry, sum(len(k) for k in self.pending.values()))
        self.reset()


def _fold(txn: lmdb.Transaction, local: Any, name: bytes, deltas: dict[int, int]) -> None:
    """XOR ``deltas`` (bucket -> delta) into one stored segment blob."""
    raw = txn.get(name, db=local)
    blob = bytearray(_ZERO if raw is None else msgpack.unpackb(raw))
    for bucket, delta in deltas.items():
        at = (bucket % PER_SEGMENT) * HASH_BYTES
        old = int.from_bytes(blob[at:at + HASH_BYTES], "big")
        blob[at:at + HASH_BYTES] = ((old ^ delta) & _MASK).to_bytes(HASH_BYTES, "big")
    txn.put(name, msgpack.packb(bytes(blob)), db=local)


def _append(txn: lmdb.Transaction, local: Any, entry: dict[str, list[str]], count: int) -> None:
    raw = txn.get(HEAD.encode(), db=local)
    seq, retained, first = (1, 0, 1) if raw is None else msgpack.unpackb(raw)
    txn.put(log_name(seq).encode(), msgpack.packb(entry), db=local)
    seq, retained = seq + 1, retained + count
    while retained > LOG_CAP and first < seq - 1:  # trim, but keep the newest entry
        name = log_name(first).encode()
        old = txn.get(name, db=local)
        if old is not None:
            retained -= sum(len(v) for v in msgpack.unpackb(old).values())
            txn.delete(name, db=local)
        first += 1
    txn.put(HEAD.encode(), msgpack.packb([seq, retained, first]), db=local)


def log_head(snap: Snapshot) -> tuple[int, int]:
    """``(next sequence, first retained sequence)`` of the change log."""
    seq, _, first = snap.get_local(HEAD, [1, 0, 1])
    return seq, first


def read_log(snap: Snapshot, after: int, limit: int = 1000) -> list[tuple[int, dict[str, list]]]:
    """Change-log entries with a sequence above ``after``, oldest first, at most ``limit``."""
    out: list[tuple[int, dict[str, list]]] = []
    start = log_name(after + 1).encode()
    prefix = LOG_PREFIX.encode()
    with snap._txn.cursor(db=snap._trees.dbs[LOCAL_TREE]) as cursor:
        if not cursor.set_range(start):
            return out
        for raw_key, raw in cursor:
            if not raw_key.startswith(prefix) or len(out) >= limit:
                break
            out.append((int(raw_key[len(prefix):], 16), msgpack.unpackb(raw)))
    return out


def digests_valid(snap: Snapshot) -> bool:
    """True when the stored digests describe the trees (see ``rebuild_digests``)."""
    return snap.get_local(MARKER) == DIGESTS_VERSION


def keeps_digests(txn: lmdb.Transaction, local: Any) -> bool:
    """True when the store keeps its change log and digests (a sync switched them on)."""
    return txn.get(MARKER.encode(), db=local) is not None


def rebuild_digests(trees: Trees) -> int:
    """Recompute every digest from the stored bytes in one write transaction.

    Returns how many records were hashed. Writers wait meanwhile; readers do not.
    """
    return in_write_txn(trees, _rebuild)


def _rebuild(txn: lmdb.Transaction, trees: Trees) -> int:
    local, count = trees.dbs[LOCAL_TREE], 0
    for name in REPLICATED:
        blobs = [bytearray(SEGMENT_BYTES) for _ in range(SEGMENTS)]
        for lkey, raw in txn.cursor(db=trees.dbs[name]):
            bucket = bucket_of(lkey)
            blob, at = blobs[bucket // PER_SEGMENT], (bucket % PER_SEGMENT) * HASH_BYTES
            old = int.from_bytes(blob[at:at + HASH_BYTES], "big")
            blob[at:at + HASH_BYTES] = (old ^ pair_hash(lkey, raw)).to_bytes(HASH_BYTES, "big")
            count += 1
        for segment, blob in enumerate(blobs):
            txn.put(segment_name(name, segment).encode(), msgpack.packb(bytes(blob)), db=local)
    # Writes made before the log was kept are in no entry: mark everything up to now as
    # trimmed, so a publisher republishes every record instead of trusting the log.
    raw = txn.get(HEAD.encode(), db=local)
    seq = 1 if raw is None else msgpack.unpackb(raw)[0]
    with txn.cursor(db=local) as cursor:
        stale = [k for k, _ in cursor if k.startswith(LOG_PREFIX.encode())] if cursor.set_range(
            LOG_PREFIX.encode()) else []
    for name in stale:
        txn.delete(name, db=local)
    txn.put(HEAD.encode(), msgpack.packb([seq + 1, 0, seq + 1]), db=local)
    txn.put(MARKER.encode(), msgpack.packb(DIGESTS_VERSION), db=local)
    return count


def in_write_txn(trees: Trees, work: Callable[[lmdb.Transaction, Trees], T]) -> T:
    """Run ``work`` in a write transaction, growing the map and retrying when it fills."""
    for _ in range(_MAX_GROWTHS):
        with lmdb_errors():
            try:
                with trees.env.begin(write=True) as txn:
                    return work(txn, trees)
            except lmdb.MapFullError:
                grow(trees.env)
            except lmdb.MapResizedError:
                adopt_size(trees.env)
    raise StoreIOError("the store's map is still full after growing it 40 times")


def raw_records(snap: Snapshot, tree: str) -> Iterator[tuple[bytes, bytes]]:
    """Every ``(LMDB key, stored bytes)`` of ``tree`` in key order, tombstones included."""
    with snap._txn.cursor(db=snap._trees.dbs[tree]) as cursor:
        yield from cursor.iternext(keys=True, values=True)


def raw_get(snap: Snapshot, tree: str, lkey: bytes) -> bytes | None:
    """The record at ``lkey`` in ``tree`` as its canonical encoding (what sync ships and
    digests hash: never compressed, so any replica of format 1 or 2 reads it), or None."""
    raw = snap._txn.get(lkey, db=snap._trees.dbs[tree])
    return None if raw is None else canonical(raw)


def repos_in(snap: Snapshot, tree: str) -> Iterator[str]:
    """The repository ids of ``tree``'s keys, skipping from one repository to the next."""
    with snap._txn.cursor(db=snap._trees.dbs[tree]) as cursor:
        ok = cursor.set_range(b"repo/")
        while ok:
            key = cursor.key()
            if not key.startswith(b"repo/"):
                return
            repo = key[5:].split(b"/", 1)[0]
            yield repo.decode(errors="replace")
            # past every "repo/{id}/..." key: "/" + 1 is "0"; a root "repo/{id}" steps on
            ok = cursor.next() if key == b"repo/" + repo else cursor.set_range(
                b"repo/" + repo + b"0")
