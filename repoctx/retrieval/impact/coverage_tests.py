"""retrieval/impact/coverage_tests — the tests that executed given lines, by the ingested coverage.

Reads the coverage records (``reconcile/nodes/coverage_record``) of the files the spans
are in. A record is trusted only when it was fresh at ingestion and its digest is still
the store's digest of the file (the file was not re-indexed since); any other is named
in ``staleFiles`` and gives no test. Store only, bounded by the number of spans.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from repoctx.extract import qualify
from repoctx.reconcile import coverage_marker_key
from repoctx.reconcile.nodes.coverage_record import coverage_of
from repoctx.retrieval.workspace import Workspace

Span = tuple[str, int, int]
"""``(path, first line, last line)``, 1-based and inclusive."""


def coverage_tests(ws: Workspace, spans: list[Span]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Test file entries (most lines hit first) for the tests that executed a line of any
    span, and the status of the coverage data behind them."""
    marker = ws.store.trees.get_local(coverage_marker_key(ws.store))
    if marker is None or not marker["report"]["files"]:
        return [], {"status": "none", "measuredAt": None, "staleFiles": []}
    found: dict[str, dict[str, Any]] = {}
    fresh, stale = 0, []
    for path in sorted({s[0] for s in spans}):
        cov = coverage_of(ws.get(ws.store.key("coverage", path)))
        if cov is None:
            continue  # not measured: no evidence either way
        node = ws.node(path)
        if cov.stale is not None or node is None or node.digest != cov.digest:
            stale.append(path)
            continue
        fresh += 1
        age = max(0, int(time.time() - cov.measured_ns / 1e9))
        for test in cov.tests:
            hits = sum(test.hits(start, end) for p, start, end in spans if p == path)
            if hits:
                entry = found.setdefault(test.path, {"path": test.path, "names": set(),
                                                     "hits": 0, "ageSeconds": age})
                entry["names"].add(qualify(test.path, test.name))  # as static entries name it
                entry["hits"] += hits
                entry["ageSeconds"] = min(entry["ageSeconds"], age)
    entries = [{"path": e["path"], "names": sorted(e["names"]), "reason": "coverage",
                "distance": 0, "ageSeconds": e["ageSeconds"]}
               for e in sorted(found.values(), key=lambda e: (-e["hits"], e["path"]))]
    status = "partial" if stale and fresh else "stale" if stale else "fresh"
    return entries, {"status": status, "measuredAt": _iso(marker["mtimeNs"]),
                     "staleFiles": stale}


def _iso(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
