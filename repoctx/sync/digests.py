"""sync/digests — read the segment digests top-down: tree roots, segments, buckets, keys.

The trees layer keeps, per replicated tree, ``BUCKETS`` bucket digests (XOR of the
hashes of the records a bucket holds) stored ``PER_SEGMENT`` to a segment blob, updated
in every write transaction (``trees.changelog``). Here they are read as a three-level
hash tree: a segment's hash is SHA-256 of its blob, a tree's root is SHA-256 of its
segment hashes, and below the buckets lie the records themselves. All reads run in one
snapshot, so the levels describe the same state. Pure reads, except ``ensure_digests``.
"""

from __future__ import annotations

from collections.abc import Iterable
from hashlib import sha256

from repoctx.store import Store
from repoctx.trees import Snapshot, changelog

HASH_BYTES = changelog.HASH_BYTES
REPLICATED = changelog.REPLICATED


def ensure_digests(store: Store) -> None:
    """Rebuild the digests of a store written before they existed (once)."""
    with store.snapshot() as snap:
        if changelog.digests_valid(snap):
            return
    changelog.rebuild_digests(store.trees)


def _blob(snap: Snapshot, tree: str, segment: int) -> bytes:
    raw = snap.get_local(changelog.segment_name(tree, segment))
    return bytes(changelog.SEGMENT_BYTES) if raw is None else raw


def segment_hashes(snap: Snapshot, tree: str) -> list[bytes]:
    """The hash of each segment of ``tree``, in segment order."""
    return [sha256(_blob(snap, tree, s)).digest()[:HASH_BYTES]
            for s in range(changelog.SEGMENTS)]


def roots(snap: Snapshot) -> dict[str, bytes]:
    """The root digest of every replicated tree."""
    return {tree: sha256(b"".join(segment_hashes(snap, tree))).digest()[:HASH_BYTES]
            for tree in REPLICATED}


def bucket_digests(snap: Snapshot, tree: str, segments: Iterable[int]) -> dict[int, bytes]:
    """Bucket number -> digest, for every bucket of the given segments of ``tree``."""
    out: dict[int, bytes] = {}
    size = HASH_BYTES
    for segment in segments:
        blob = _blob(snap, tree, segment)
        first = segment * changelog.PER_SEGMENT
        for i in range(changelog.PER_SEGMENT):
            out[first + i] = blob[i * size:(i + 1) * size]
    return out


def entries(snap: Snapshot, tree: str, buckets: Iterable[int]) -> dict[str, bytes]:
    """LMDB key -> record hash, for every record of ``tree`` in the given buckets.

    One pass over the tree's keys (a bucket is a hash class, not a key range); only
    the records in a wanted bucket are hashed.
    """
    wanted = set(buckets)
    if not wanted:
        return {}
    out: dict[str, bytes] = {}
    bucket_of, pair_hash = changelog.bucket_of, changelog.pair_hash
    for lkey, raw in changelog.raw_records(snap, tree):
        if bucket_of(lkey) in wanted:
            out[lkey.decode()] = pair_hash(lkey, raw).to_bytes(HASH_BYTES, "big")
    return out


def differing(mine: dict, theirs: dict) -> list:
    """The keys whose values differ, or that only one side has, sorted."""
    return sorted(k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))
