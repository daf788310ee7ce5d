"""retrieval/impact/changed — ``repocontext_changed``: what an edit touches, which tests to run.

Digest drift of the working tree against the store: a stat fast path (size and mtime
equal to the file node: unchanged, not read), then SHA-256 to confirm. For the files
that drifted, the symbols whose declarations changed (re-extracted from the working
copy) and, from the reverse index, their dependents (resolved through imports first,
``impact.resolve``) and covering tests.
"""

from __future__ import annotations

import hashlib
from typing import Any

from repoctx.extract import extract, simple_name
from repoctx.reconcile import FileNode, declarations_of, is_binary, walk
from repoctx.reconcile.nodes import file_node, xref_record
from repoctx.retrieval.impact.resolve import dependents_all
from repoctx.retrieval.search.rankings import matches_filter
from repoctx.retrieval.symbols import declarations, reverse_all
from repoctx.retrieval.workspace import Workspace


def changed(ws: Workspace, paths: list[str] | None = None) -> dict[str, Any]:
    """``{added, updated, removed, changedSymbols, dependents, tests}`` of the working tree."""
    nodes = file_node.load_all(ws.store)
    on_disk = _on_disk(ws, paths)
    added = sorted(p for p in on_disk if p not in nodes and not _binary(ws, p))
    removed = sorted(p for p in nodes
                     if (not paths or matches_filter(p, paths)) and p not in on_disk)
    updated = sorted(p for p, stat in on_disk.items()
                     if p in nodes and _drifted(ws, nodes[p], stat))
    symbols = _changed_symbols(ws, nodes, added, updated, removed)
    names = {simple_name(s["fqName"]) for s in symbols}
    return {"added": added, "updated": updated, "removed": removed, "changedSymbols": symbols,
            "dependents": dependents_all(ws, {s["fqName"] for s in symbols}),
            "tests": reverse_all(ws, names, xref_record.TESTS)}


def _on_disk(ws: Workspace, paths: list[str] | None) -> dict[str, tuple[int, int]]:
    found = walk(ws.root, store_dir=ws.store.path)
    keep = {f.path: (f.size, f.mtime_ns) for f in found.files}
    if not paths:
        return keep
    return {p: s for p, s in keep.items()
            if matches_filter(p, paths)}


def _binary(ws: Workspace, path: str) -> bool:
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


def _changed_symbols(ws: Workspace, nodes: dict[str, FileNode], added: list[str],
                     updated: list[str], removed: list[str]) -> list[dict[str, str]]:
    out = []
    for path in removed:
        out += [{"fqName": fq, "path": path, "change": "removed"} for fq in nodes[path].symbols]
    for path in added + updated:
        try:
            text = (ws.root / path).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        now = declarations_of(path, extract(path, text))
        before = {fq: declarations(ws, fq).get(path) for fq in
                  (nodes[path].symbols if path in nodes else ())}
        for fq in sorted(set(now) | set(before)):
            old, new = before.get(fq), now.get(fq)
            if old is None and new is not None:
                out.append({"fqName": fq, "path": path, "change": "added"})
            elif new is None:
                out.append({"fqName": fq, "path": path, "change": "removed"})
            elif old != new:
                out.append({"fqName": fq, "path": path, "change": "modified"})
    return out
