"""memory/graph — ``neighbors``: a breadth-first walk over memory links.

Edges are the live links of live memory entries, walked both ways: out of an entry
to what it links to, and into a node from the entries that link to it (so a walk
from a file finds the notes about it, and from a note the other notes on the same
code). One scan of the repository's memory range builds the adjacency. Every
neighbour is evaluated for staleness: a memory neighbour on its own links, a file or
symbol on the link that reached it (its captured digest against the target's present
state). The walk stops at ``depth`` hops or ``max_nodes`` neighbours (``truncated``).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from repoctx.errors import ToolError
from repoctx.store import Store
from repoctx.trees import Snapshot

from . import links as link_rules
from .entries import live_entry
from .memory_record import FAMILY, Entry, parse_memory_key
from .staleness import evaluate, link_state

MAX_DEPTH, MAX_NODES = 3, 100


@dataclass(frozen=True, slots=True)
class _Edge:
    source: str
    relation: str
    target: str


def neighbors(store: Store, key: str, *, relation: str | None = None, depth: int = 1,
              max_nodes: int = 50, now_ms: int | None = None) -> dict[str, Any]:
    """``{key, exists, neighbors[...], truncated}`` for a memory, file or symbol key."""
    key, start_family = _start(store, key)
    if relation is not None:
        link_rules.check_relation(relation)
    depth, max_nodes = min(max(depth, 1), MAX_DEPTH), min(max(max_nodes, 1), MAX_NODES)
    with store.snapshot(now_ms) as snap:
        entries = _entries(store, snap)
        exists = key in entries if start_family == FAMILY else snap.get(key) is not None
        found, truncated = _walk(snap, entries, key, relation, depth, max_nodes)
    return {"key": key, "exists": exists, "neighbors": found, "truncated": truncated}


def _start(store: Store, key: str) -> tuple[str, str]:
    """The start's key (a path or symbol name becomes its record's key) and its family."""
    try:
        target = link_rules.check_target(store.repo_id, key, store.get)
    except ToolError:
        raise ToolError(f"key: {key!r} is not a memory, file or symbol key of "
                        f"repo/{store.repo_id}, nor an indexed path or symbol name") from None
    if link_rules.family(target) == FAMILY:
        parse_memory_key(store.repo_id, target)
    return target, link_rules.family(target)


def _entries(store: Store, snap: Snapshot) -> dict[str, Entry]:
    out = {}
    for key, rec in snap.scan(store.key(FAMILY, "x")[:-1]):
        found = live_entry(key, rec, snap.now_ms)
        if found is not None:
            out[key] = found
    return out


def _adjacency(entries: dict[str, Entry], relation: str | None,
               ) -> tuple[dict[str, list[_Edge]], dict[str, list[_Edge]]]:
    outgoing: dict[str, list[_Edge]] = {}
    incoming: dict[str, list[_Edge]] = {}
    for key, found in entries.items():
        for rel, targets in found.links.items():
            if relation is not None and rel != relation:
                continue
            for target in sorted(targets):
                edge = _Edge(key, rel, target)
                outgoing.setdefault(key, []).append(edge)
                incoming.setdefault(target, []).append(edge)
    return outgoing, incoming


def _walk(snap: Snapshot, entries: dict[str, Entry], start: str, relation: str | None,
          depth: int, max_nodes: int) -> tuple[list[dict[str, Any]], bool]:
    outgoing, incoming = _adjacency(entries, relation)
    seen, found = {start}, []
    queue: deque[tuple[str, int]] = deque([(start, 0)])
    while queue:
        node, hops = queue.popleft()
        if hops == depth:
            continue
        steps = [(e, e.target, "out") for e in outgoing.get(node, [])]
        steps += [(e, e.source, "in") for e in incoming.get(node, [])]
        for edge, other, direction in steps:
            if other in seen:
                continue
            if len(found) == max_nodes:
                return found, True
            seen.add(other)
            found.append(_node(snap, entries, edge, other, direction, hops + 1))
            queue.append((other, hops + 1))
    return found, False


def _node(snap: Snapshot, entries: dict[str, Entry], edge: _Edge, key: str, direction: str,
          hops: int) -> dict[str, Any]:
    family = link_rules.family(key)
    item: dict[str, Any] = {"key": key, "family": family, "relation": edge.relation,
                            "direction": direction, "depth": hops,
                            "via": edge.source if direction == "out" else edge.target}
    if family == FAMILY:
        found = entries.get(key)
        if found is None:
            return item | {"exists": False, "stale": False, "staleLinks": [],
                           "danglingLinks": []}
        return item | {"exists": True, "kind": found.kind, "title": found.title,
                       "topic": found.topic, "id": found.id} | evaluate(found, snap.get).as_json()
    captured = entries[edge.source].digests.get(key)
    stale, dangling = link_state(snap.get, key, captured)
    return item | {"exists": not dangling, "stale": stale,
                   "staleLinks": [key] if stale else [], "danglingLinks": [key] if dangling else []}
