"""retrieval/impact/changed — ``repocontext_changed``: what an edit touches, which tests to run.

Digest drift of the working tree against the store: a stat fast path (size and mtime
equal to the file node: unchanged, not read), then SHA-256 to confirm. For the files
that drifted, the definitions added, removed, or modified (their own text's digest
changed: ``extract.definition_digests``, re-extracted from the working copy), the
definitions enclosing a changed one, their dependents (resolved through imports first,
``impact.resolve``) and the test files covering them (the coverage data's first, then
``covering``). Declarations stored without a digest (by an older version) get theirs
from the stored body; without a body they are compared whole.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

from repoctx.extract import definition_digests, extract, separator_of
from repoctx.reconcile import Declaration, FileNode, declarations_of, is_binary, walk
from repoctx.reconcile.nodes import content_record, file_node
from repoctx.reconcile.nodes.fields import lww_value
from repoctx.retrieval.impact.coverage_tests import Span, coverage_tests
from repoctx.retrieval.impact.covering import TESTS_K, covering_tests
from repoctx.retrieval.impact.resolve import dependents_all
from repoctx.retrieval.search.rankings import matches_filter
from repoctx.retrieval.symbols import declarations
from repoctx.retrieval.workspace import Workspace


def changed(ws: Workspace, paths: list[str] | None = None) -> dict[str, Any]:
    """``{added, updated, removed, changedSymbols, containingChanges, dependents, tests,
    coverage}`` of the working tree (``tests``: the coverage data's first, then the static
    evidence's for files the data did not name)."""
    nodes = file_node.load_all(ws.store)
    on_disk = _on_disk(ws, paths)
    added = sorted(p for p in on_disk if p not in nodes and not _binary(ws, p))
    removed = sorted(p for p in nodes
                     if (not paths or matches_filter(p, paths)) and p not in on_disk)
    updated = sorted(p for p, stat in on_disk.items()
                     if p in nodes and _drifted(ws, nodes[p], stat))
    symbols, declared = _changed_symbols(ws, nodes, added, updated, removed)
    covered, coverage = coverage_tests(ws, _stored_spans(ws, symbols))
    return {"added": added, "updated": updated, "removed": removed, "changedSymbols": symbols,
            "containingChanges": _containing(symbols, declared),
            "dependents": dependents_all(ws, {s["fqName"] for s in symbols}),
            "tests": _tests(covered, covering_tests(
                ws, [(s["fqName"], s["path"]) for s in symbols], TESTS_K)),
            "coverage": coverage}


def _tests(covered: list[dict[str, Any]], static: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The coverage data's test files first, then the static ones it did not name."""
    named = {entry["path"] for entry in covered}
    return covered + [entry for entry in static if entry["path"] not in named]


def _stored_spans(ws: Workspace, symbols: list[dict[str, str]]) -> list[Span]:
    """The indexed spans of the modified and removed definitions: coverage was measured
    on the indexed text, not on the edit."""
    spans = []
    for sym in symbols:
        decl = declarations(ws, sym["fqName"]).get(sym["path"])
        if sym["change"] != "added" and decl is not None:
            spans.append((sym["path"], decl.start_line, decl.end_line))
    return spans


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
                     updated: list[str], removed: list[str],
                     ) -> tuple[list[dict[str, str]], dict[str, set[str]]]:
    """The changed definitions, and every definition of each file read (now or before)."""
    out, declared = [], {}
    for path in removed:
        out += [{"fqName": fq, "path": path, "change": "removed"} for fq in nodes[path].symbols]
    for path in added + updated:
        try:
            text = (ws.root / path).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        now = declarations_of(path, extract(path, text), text)
        before = _stored(ws, nodes[path]) if path in nodes else {}
        declared[path] = set(now) | set(before)
        for fq in sorted(declared[path]):
            old, new = before.get(fq), now.get(fq)
            if old is None and new is not None:
                out.append({"fqName": fq, "path": path, "change": "added"})
            elif new is None:
                out.append({"fqName": fq, "path": path, "change": "removed"})
            elif _modified(old, new):
                out.append({"fqName": fq, "path": path, "change": "modified"})
    return out, declared


def _stored(ws: Workspace, node: FileNode) -> dict[str, Declaration]:
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


def _modified(old: Declaration, new: Declaration) -> bool:
    """True if a definition's own text changed; compared whole when a digest is unknown."""
    if old.digest and new.digest:
        return old.digest != new.digest
    return replace(old, digest="") != replace(new, digest="")


def _containing(symbols: list[dict[str, str]], declared: dict[str, set[str]],
                ) -> list[dict[str, str]]:
    """The definitions of the same file enclosing a changed one (by qualified-name
    prefix) that are not changed themselves."""
    changed_names = {(s["path"], s["fqName"]) for s in symbols}
    found = set()
    for s in symbols:
        path, fq = s["path"], s["fqName"]
        sep = separator_of(path)
        found.update((outer, path) for outer in declared.get(path, ())
                     if fq.startswith(outer + sep) and (path, outer) not in changed_names)
    return [{"fqName": fq, "path": path} for fq, path in sorted(found)]
