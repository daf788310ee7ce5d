"""retrieval/impact/changed — ``repocontext_changed``: what an edit touches, which tests to run.

The files that drifted from a baseline (``impact.since``: a git revision's tree, ``HEAD``
by default in a git checkout; ``impact.drift``: the last index, outside git or asked
for), the definitions added, removed, or modified (their own text's digest changed:
``extract.definition_digests``, re-extracted from the working copy and compared with the
baseline's), the definitions enclosing a changed one, their dependents (resolved through
imports first, ``impact.resolve``) and the test files covering them (the coverage data's
first, then ``covering``). Declarations stored without a digest (by an older version) get
theirs from the stored body; without a body they are compared whole.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from repoctx.extract import extract, separator_of
from repoctx.reconcile import Declaration, declarations_of
from repoctx.retrieval.impact.coverage_tests import Span, coverage_tests
from repoctx.retrieval.impact.covering import TESTS_K, covering_tests
from repoctx.retrieval.impact.drift import Drift, index_drift
from repoctx.retrieval.impact.resolve import dependents_all
from repoctx.retrieval.impact.since import LAST_INDEX, default_baseline, git_drift
from repoctx.retrieval.symbols import declarations
from repoctx.retrieval.workspace import Workspace


def changed(ws: Workspace, paths: list[str] | None = None, since: str | None = None,
            ) -> dict[str, Any]:
    """``{added, updated, removed, changedSymbols, containingChanges, dependents, tests,
    coverage}`` of the working tree against git's tree at revision ``since`` (then also
    ``since: {rev, commit, cutFiles}``; by default ``HEAD`` in a git checkout) or against
    the last index (``since="index"``, and the default outside git). ``tests``: the
    coverage data's first, then the static evidence's for files the data did not name."""
    # dependents, covering tests and import resolution look up the same file nodes and
    # bodies thousands of times on a large tree: one read per key for the whole call
    with ws.pinned():
        baseline = default_baseline(ws.root) if since is None else since
        drift = (index_drift(ws, paths) if baseline in (None, LAST_INDEX)
                 else git_drift(ws, paths, baseline))
        symbols, declared = _changed_symbols(ws, drift)
        covered, coverage = coverage_tests(ws, _stored_spans(ws, symbols))
        answer = {"added": list(drift.added), "updated": list(drift.updated),
                  "removed": list(drift.removed), "changedSymbols": symbols,
                  "containingChanges": _containing(symbols, declared),
                  "dependents": dependents_all(ws, {s["fqName"] for s in symbols}),
                  "tests": _tests(covered, covering_tests(
                      ws, [(s["fqName"], s["path"]) for s in symbols], TESTS_K)),
                  "coverage": coverage}
    if drift.baseline is not None:
        answer["since"] = dict(drift.baseline)
    return answer


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


def _changed_symbols(ws: Workspace, drift: Drift,
                     ) -> tuple[list[dict[str, str]], dict[str, set[str]]]:
    """The changed definitions, and every definition of each file read (now or before)."""
    out, declared = [], {}
    for path in drift.removed:
        out += [{"fqName": fq, "path": path, "change": "removed"}
                for fq in drift.gone.get(path, ())]
    for path in drift.added + drift.updated:
        try:
            text = (ws.root / path).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        now = declarations_of(path, extract(path, text), text)
        before = drift.before.get(path, {})
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
