"""sync/protocol — the requests one replica answers for another, over any transport.

A session is a few request/response round trips, each a msgpack map (``wire``):

``hello``     both identities (store format, repository, replica id) and the tree roots;
``segments``  the 64 segment hashes of the trees whose roots differ;
``buckets``   the bucket digests inside the segments that differ;
``entries``   key -> record hash for the records in the buckets that differ;
``fetch``     the stored bytes of named records;
``push``      records to check and merge (``receive``); answers merged/unchanged/rejected;
``finish``    the exchange is over: refresh what derives from the merged records.

``Responder`` answers them from one store; the client side (``session``) asks its own
store the same questions through a ``Responder`` too, so both sides read digests the
same way. Identity checks run on both sides (``check_peer``): a newer store format, a
store of another repository, or a replica id equal to ours (reused dots would corrupt
merges) is refused with a message naming both values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from repoctx.errors import SyncError, SyncRefusedError
from repoctx.store import FORMAT_VERSION, Store
from repoctx.trees import BY_NAME, changelog

from . import digests
from .receive import receive

PROTOCOL = 1
OnFinish = Callable[[Store, int], None]
"""Called after an exchange that merged records here (the store, records merged)."""


def known_repos(store: Store) -> list[str]:
    """Repositories this store holds records of (roots, memory, anything replicated).

    A skip-scan over the raw keys of each replicated tree: one cursor step per
    repository, never a walk over its records.
    """
    found: set[str] = set()
    with store.snapshot() as snap:
        for tree in changelog.REPLICATED:
            found.update(changelog.repos_in(snap, tree))
    return sorted(found)


def identity(store: Store) -> dict[str, Any]:
    """What a replica says about itself in ``hello``."""
    return {"protocol": PROTOCOL, "format": store.trees.get_local("format", FORMAT_VERSION),
            "repoId": store.repo_id, "repoIds": known_repos(store),
            "replicaId": store.replica_id}


def check_peer(mine: dict[str, Any], theirs: dict[str, Any], where: str) -> None:
    """Refuse an exchange between ``mine`` and ``theirs`` (a peer at ``where``) if unsafe."""
    if theirs.get("protocol") != PROTOCOL:
        raise SyncRefusedError(f"peer {where} speaks sync protocol {theirs.get('protocol')}; "
                               f"this repoctx speaks protocol {PROTOCOL}")
    if int(theirs.get("format", 0)) > int(mine["format"]):
        raise SyncRefusedError(
            f"peer {where} has store format {theirs['format']}, newer than format "
            f"{mine['format']} that this repoctx reads; upgrade repoctx here first")
    known = theirs.get("repoIds") or []
    if known and mine["repoId"] not in known:
        raise SyncRefusedError(f"peer {where} holds repository {', '.join(known)}, "
                               f"not {mine['repoId']}; sync only replicas of one repository")
    if theirs.get("replicaId") == mine["replicaId"]:
        raise SyncRefusedError(
            f"peer {where} authors writes as replica {mine['replicaId']} too (a copied "
            "store?); give one of them a new id (--replica-id, or restore it from a backup)")


class Responder:
    """Answers sync requests from ``store``."""

    def __init__(self, store: Store, on_finish: OnFinish | None = None) -> None:
        self.store = store
        self.on_finish = on_finish
        self.merged = 0
        """Records merged into ``store`` by pushes since the last ``finish``."""

    def handle(self, op: str, body: dict[str, Any]) -> dict[str, Any]:
        """Answer one request; raises ``SyncError`` for a bad one."""
        handler = _OPS.get(op)
        if handler is None:
            raise SyncError(f"unknown sync request {op!r}")
        try:
            return handler(self, body)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise SyncError(f"malformed {op} request: {exc}") from exc

    def hello(self, body: dict[str, Any]) -> dict[str, Any]:
        """Check the caller, then say who we are and give our tree roots."""
        digests.ensure_digests(self.store)
        mine = identity(self.store)
        if body:
            check_peer(mine, body, f"replica {body.get('replicaId')} (the caller)")
        with self.store.snapshot() as snap:
            return mine | {"roots": digests.roots(snap)}

    def segments(self, body: dict[str, Any]) -> dict[str, Any]:
        """Segment hashes of the named trees."""
        with self.store.snapshot() as snap:
            return {"segments": {t: digests.segment_hashes(snap, _tree(t))
                                 for t in body["trees"]}}

    def buckets(self, body: dict[str, Any]) -> dict[str, Any]:
        """Bucket digests of the named segments."""
        with self.store.snapshot() as snap:
            return {"buckets": {t: digests.bucket_digests(snap, _tree(t), segs)
                                for t, segs in body["want"].items()}}

    def entries(self, body: dict[str, Any]) -> dict[str, Any]:
        """Key -> record hash for the records in the named buckets."""
        with self.store.snapshot() as snap:
            return {"entries": {t: digests.entries(snap, _tree(t), buckets)
                                for t, buckets in body["want"].items()}}

    def fetch(self, body: dict[str, Any]) -> dict[str, Any]:
        """The stored bytes of the named records (absent ones are left out)."""
        out = []
        with self.store.snapshot() as snap:
            for t, keys in body["want"].items():
                for key in keys:
                    raw = changelog.raw_get(snap, _tree(t), key.encode())
                    if raw is not None:
                        out.append([t, key, raw])
        return {"records": out}

    def push(self, body: dict[str, Any]) -> dict[str, Any]:
        """Check and merge the records sent; name the ones refused."""
        got = receive(self.store, ((t, k, r) for t, k, r in body["records"]))
        self.merged += got.merged
        return {"merged": got.merged, "unchanged": got.unchanged,
                "rejected": [[e.tree, e.key, e.reason] for e in got.rejected]}

    def finish(self, body: dict[str, Any]) -> dict[str, Any]:
        """The exchange is over: refresh derived state if anything was merged."""
        merged, self.merged = self.merged, 0
        if merged and self.on_finish is not None:
            self.on_finish(self.store, merged)
        return {"merged": merged}


def _tree(name: str) -> str:
    spec = BY_NAME.get(name)
    if spec is None or not spec.replicated:
        raise SyncError(f"{name!r} is not a replicated tree")
    return name


_OPS: dict[str, Callable[[Responder, dict[str, Any]], dict[str, Any]]] = {
    "hello": Responder.hello,
    "segments": Responder.segments,
    "buckets": Responder.buckets,
    "entries": Responder.entries,
    "fetch": Responder.fetch,
    "push": Responder.push,
    "finish": Responder.finish,
}
