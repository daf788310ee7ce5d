"""retrieval/status — index status, call stats and health of a workspace."""

from __future__ import annotations

import platform
import sqlite3
from importlib import metadata
from typing import Any

import lmdb

from repoctx.errors import RepoctxError
from repoctx.reconcile import is_locked, read_status, root_node
from repoctx.store import FORMAT_VERSION

from .workspace import Workspace


def index_status(ws: Workspace) -> dict[str, Any]:
    """Whether the index is ready, running or failed, with its counters and timings."""
    root = root_node.summary(ws.store.get(ws.store.key()))
    last = read_status(ws.store.path)
    running = is_locked(ws.store.path)
    status = "indexing" if running else last.get("status") or (
        "ready" if root["files"] else "empty")
    report = last.get("report") or {}
    return {"repoId": ws.store.repo_id, "status": status,
            "phase": last.get("phase") if running else None,
            "files": root["files"], "symbols": root["symbols"],
            "counters": {k: report.get(k) for k in
                         ("scanned", "added", "changed", "touched", "unchanged", "removed")},
            "timings": report.get("seconds"), "lastError": last.get("lastError")}


def health(ws: Workspace) -> dict[str, Any]:
    """Can the store and the export be read, and with which versions of what."""
    checks: dict[str, Any] = {}
    try:
        ws.store.get(ws.store.key())
        checks["store"] = {"ok": True, "path": str(ws.store.path), "format": FORMAT_VERSION,
                           "replicaId": ws.store.replica_id}
    except RepoctxError as exc:
        checks["store"] = {"ok": False, "error": str(exc)}
    try:
        checks["export"] = {"ok": True, "path": str(ws.export),
                            "schemaVersion": ws.reader().meta.schema_version}
    except RepoctxError as exc:
        checks["export"] = {"ok": False, "path": str(ws.export), "error": str(exc)}
    versions = {"repoctx": metadata.version("repoctx"), "python": platform.python_version(),
                "lmdb": lmdb.version(subpatch=False), "sqlite": sqlite3.sqlite_version}
    return {"ok": all(c["ok"] for c in checks.values()), **checks,
            "versions": {k: ".".join(map(str, v)) if isinstance(v, tuple) else v
                         for k, v in versions.items()}}
