"""retrieval/impact/drift — which files differ between a baseline and the working tree,
and what the differing files declared at the baseline.

Two baselines answer the same ``Drift``: the last index (``index_drift``, here: a stat
fast path against each file node, then SHA-256 to confirm; the definitions before are
the stored declarations) and a git revision (``impact.since``). ``changed`` compares
definitions from it, so both baselines name changes the same way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from repoctx.extract import definition_digests
from repoctx.reconcile import Declaration, FileNode, is_binary, walk_again
from repoctx.reconcile.nodes import content_record, file_node
from repoctx.reconcile.nodes.fields import lww_value
from repoctx.retrieval.search.rankings import matches_filter
from repoctx.retrieval.symbols import declarations
from repoctx.retrieval.workspace import Workspace


@dataclass(frozen=True, slots=True)
class Drift:
    """The files added, updated and removed since a baseline (each sorted), what each
    updated file declared then (``before``) and the names each removed file declared
    (``gone``). ``baseline`` describes a revision baseline for the answer (None: the
    last index)."""

    added: tuple[str, ...]
    updated: tuple[str, ...]
    removed: tuple[str, ...]
    before: Mapping[str, Mapping[str, Declaration]] = field(default_factory=dict)
    gone: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    baseline: Mapping[str, Any] | None = None


def index_drift(ws: Workspace, paths: list[str] | None) -> Drift:
    """The drift of the working tree (limited to ``paths``) from the last index."""
    nodes = file_node.load_all(ws.store)
    present = on_disk(ws, paths)
    added = tuple(sorted(p for p in present if p not in nodes and not binary(ws, p)))
    removed = tuple(sorted(p for p in nodes
                           if (not paths or matches_filter(p, paths)) and p not in present))
    updated = tuple(sorted(p for p, stat in present.items()
                           if p in nodes and _drifted(ws, nodes[p], stat)))
    return Drift(added, updated, removed,
                 before={p: stored_declarations(ws, nodes[p]) for p in updated},
                 gone={p: tuple(nodes[p].symbols) for p in removed})


def on_disk(ws: Workspace, paths: list[str] | None) -> dict[str, tuple[int, int]]:
    """``path -> (size, mtime_ns)`` of the files the index would see (limited to
    ``paths``): the reconcile's own walk, so ignore rules and the store are the same
    (reusing the last settled pass's listings of the directories unchanged since)."""
    found = walk_again(ws.store, ws.root)
    keep = {f.path: (f.size, f.mtime_ns) for f in found.files}
    if not paths:
        return keep
    return {p: s for p, s in keep.items() if matches_filter(p, paths)}


def binary(ws: Workspace, path: str) -> bool:
    """True if the working copy of ``path`` looks binary (the index leaves those out)."""
    try:
        with open(ws.root / path, "rb") as handle:
            return is_binary(handle.read(8192))
    except OSError:
        return False


def _drifted(ws: Workspace, node: FileNode, stat: tuple[int, int]) -> bool:
    if (node.size, node.mtime_ns) == stat:
        return False
    try:
        data = (ws.root / node.path).read_bytes()
    except OSError:
        return True
    return hashlib.sha256(data).hexdigest() != node.digest


def stored_declarations(ws: Workspace, node: FileNode) -> dict[str, Declaration]:
    """What the store says ``node``'s file declares, each with its digest where the
    stored body of the same version gives one to a declaration stored without."""
    stored = {}
    for fq in node.symbols:
        decl = declarations(ws, fq).get(node.path)
        if decl is not None:
            stored[fq] = decl
    if all(d.digest for d in stored.values()):
        return stored
    rec = ws.get(ws.store.key("content", node.path))
    text = content_record.body(rec)
    if (text is None or len(text) >= content_record.MAX_CHARS  # cut: spans may pass its end
            or lww_value(rec, "digest") != node.digest):
        return stored
    found = definition_digests(text, {fq: (d.start_line, d.end_line)
                                      for fq, d in stored.items()})
    return {fq: d if d.digest else replace(d, digest=found[fq]) for fq, d in stored.items()}
