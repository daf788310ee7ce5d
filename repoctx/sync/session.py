"""sync/session — one anti-entropy exchange with a peer, top-down, both ways.

Compare tree roots; for the trees that differ, the 64 segment hashes; inside the
segments that differ, the bucket digests; inside the buckets that differ, the
per-record hashes. Then ship exactly the records that differ: ours the peer lacks or
holds otherwise are pushed, theirs we lack or hold otherwise are fetched, each side
merging on arrival (``receive``); fetches go first, so a record both sides changed
is pushed back only if the merge left ours different from theirs. Records move in
chunks, a transaction each, so an exchange cut short keeps every chunk that arrived
and the next exchange, comparing digests afresh, finishes the job. After 100 changed
records out of 100,000 an exchange ships about 100 records; a repeated one ships none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from repoctx.store import Store
from repoctx.trees import Snapshot, changelog

from . import digests
from .protocol import Responder, check_peer
from .receive import Received, receive
from .transport import Transport

CHUNK = 500
"""Records per push or fetch request (and per merging transaction)."""


@dataclass
class SyncReport:
    """What one exchange shipped and merged."""

    peer: str
    sent: int = 0
    """Records pushed to the peer."""
    received: int = 0
    """Records fetched from the peer."""
    bytes_sent: int = 0
    """Key and value bytes of the records pushed."""
    bytes_received: int = 0
    """Key and value bytes of the records fetched."""
    wire_bytes: int = 0
    """Every byte of every message, both ways (digests included)."""
    merged_here: int = 0
    merged_there: int = 0
    rejected_here: list[str] = field(default_factory=list)
    """Records from the peer refused here, each naming tree and key."""
    rejected_there: list[str] = field(default_factory=list)
    trees: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per differing tree: records ``sent`` and ``received``."""
    complete: bool = False

    def as_json(self) -> dict[str, Any]:
        """The report as a JSON-ready dict."""
        return {"peer": self.peer, "sent": self.sent, "received": self.received,
                "bytesSent": self.bytes_sent, "bytesReceived": self.bytes_received,
                "wireBytes": self.wire_bytes, "mergedHere": self.merged_here,
                "mergedThere": self.merged_there, "rejectedHere": self.rejected_here,
                "rejectedThere": self.rejected_there, "trees": self.trees,
                "complete": self.complete}


def sync(store: Store, peer: Transport, *, chunk: int = CHUNK,
         max_records: int | None = None,
         on_merged: Callable[[Store, int], None] | None = None) -> SyncReport:
    """Exchange every differing record with ``peer``; returns what moved.

    ``max_records`` stops after shipping that many records (a deliberately partial
    exchange: ``complete`` stays False). ``on_merged(store, n)`` runs when records were
    merged here. Raises ``SyncRefusedError`` or ``PeerUnavailableError``.
    """
    report = SyncReport(peer.where)
    wire_before = peer.sent_bytes + peer.received_bytes
    local = Responder(store)
    mine = local.hello({})
    theirs = peer.call("hello", {k: v for k, v in mine.items() if k != "roots"})
    check_peer(mine, theirs, peer.where)
    try:
        sends, fetches, their_hashes = _differences(local, peer, mine["roots"], theirs["roots"])
        budget = [max_records if max_records is not None else -1]
        complete = _fetch(store, peer, fetches, chunk, budget, report)
        sends = _still_differing(store, sends, their_hashes)
        complete = _push(store, peer, sends, chunk, budget, report) and complete
        report.merged_there = peer.call("finish", {}).get("merged", 0)
        report.complete = complete
    finally:
        report.wire_bytes = peer.sent_bytes + peer.received_bytes - wire_before
        if report.merged_here and on_merged is not None:
            on_merged(store, report.merged_here)
    return report


Keys = dict[str, list[str]]


def _differences(local: Responder, peer: Transport, my_roots: dict, their_roots: dict,
                 ) -> tuple[Keys, Keys, dict[str, dict[str, bytes]]]:
    """Keys to push and keys to fetch per tree, found top-down, and the peer's hashes."""
    trees = [t for t in digests.REPLICATED if my_roots[t] != their_roots.get(t)]
    if not trees:
        return {}, {}, {}
    ask = {"trees": trees}
    segs = _split(local.segments(ask)["segments"], peer.call("segments", ask)["segments"])
    want = {t: s for t, s in segs.items() if s}
    mine = local.buckets({"want": want})["buckets"]
    theirs = peer.call("buckets", {"want": want})["buckets"]
    want = {t: digests.differing(mine[t], theirs.get(t, {})) for t in want}
    want = {t: b for t, b in want.items() if b}
    mine = local.entries({"want": want})["entries"]
    theirs = peer.call("entries", {"want": want})["entries"]
    sends, fetches = {}, {}
    for t in want:
        ours, others = mine[t], theirs.get(t, {})
        keys = digests.differing(ours, others)
        sends[t] = [k for k in keys if k in ours]
        fetches[t] = [k for k in keys if k in others]
    return sends, fetches, theirs


def _still_differing(store: Store, sends: Keys, theirs: dict[str, dict[str, bytes]]) -> Keys:
    """Drop the keys whose record, after the fetched ones merged, equals the peer's.

    A key both sides changed is fetched first; when the peer's version dominated ours,
    the merge made them equal and there is nothing left to push.
    """
    out: Keys = {}
    with store.snapshot() as snap:
        for tree, keys in sends.items():
            other = theirs.get(tree, {})
            out[tree] = [k for k in keys if k not in other or _hash(snap, tree, k) != other[k]]
    return out


def _hash(snap: Snapshot, tree: str, key: str) -> bytes | None:
    raw = changelog.raw_get(snap, tree, key.encode())
    if raw is None:
        return None
    return changelog.pair_hash(key.encode(), raw).to_bytes(changelog.HASH_BYTES, "big")


def _split(mine: dict[str, list[bytes]], theirs: dict[str, list[bytes]]) -> dict[str, list[int]]:
    """Per tree, the segment numbers whose hashes differ."""
    return {t: [i for i, h in enumerate(hashes) if h != (theirs.get(t) or [None] * len(hashes))[i]]
            for t, hashes in mine.items()}


def _chunks(keys: Keys, chunk: int) -> list[tuple[str, list[str]]]:
    return [(t, ks[i:i + chunk]) for t, ks in keys.items() for i in range(0, len(ks), chunk)]


def _take(budget: list[int], keys: list[str]) -> list[str]:
    """The part of ``keys`` the record budget still allows (-1: unlimited)."""
    if budget[0] < 0:
        return keys
    keys = keys[:budget[0]]
    budget[0] -= len(keys)
    return keys


def _push(store: Store, peer: Transport, sends: Keys, chunk: int,
          budget: list[int], report: SyncReport) -> bool:
    for tree, wanted in _chunks(sends, chunk):
        keys = _take(budget, wanted)
        if not keys:
            return False
        with store.snapshot() as snap:
            records = [[tree, k, raw] for k in keys
                       if (raw := changelog.raw_get(snap, tree, k.encode())) is not None]
        answer = peer.call("push", {"records": records})
        report.sent += len(records)
        report.bytes_sent += sum(len(k) + len(r) for _, k, r in records)
        report.trees.setdefault(tree, {"sent": 0, "received": 0})["sent"] += len(records)
        report.rejected_there += [f"{t}: {k}: {why}" for t, k, why in answer["rejected"]]
        if len(keys) < len(wanted):
            return False
    return True


def _fetch(store: Store, peer: Transport, fetches: Keys, chunk: int,
           budget: list[int], report: SyncReport) -> bool:
    for tree, wanted in _chunks(fetches, chunk):
        keys = _take(budget, wanted)
        if not keys:
            return False
        records = peer.call("fetch", {"want": {tree: keys}})["records"]
        got: Received = receive(store, ((t, k, r) for t, k, r in records), chunk=chunk)
        report.received += len(records)
        report.bytes_received += sum(len(k) + len(r) for _, k, r in records)
        report.trees.setdefault(tree, {"sent": 0, "received": 0})["received"] += len(records)
        report.merged_here += got.merged
        report.rejected_here += [str(e) for e in got.rejected]
        if len(keys) < len(wanted):
            return False
    return True
