"""tools/status — index status, call stats and health of a workspace."""

from __future__ import annotations

import platform
import sqlite3
import time
from importlib import metadata
from typing import Any

import lmdb

from repoctx.errors import RepoctxError
from repoctx.maintenance.check import check_open
from repoctx.reconcile import is_locked, read_status
from repoctx.reconcile.nodes import root_node
from repoctx.reconcile.status import age_seconds
from repoctx.retrieval.workspace import Workspace
from repoctx.store import FORMAT_VERSION


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
            "timings": report.get("seconds"), "lastError": last.get("lastError"),
            "ageSeconds": age_seconds(last)}


def index_age(ws: Workspace) -> float | None:
    """Seconds since the pass search answers come from finished (None: not known).

    Search reads the export, which follows its pass: while a newer pass's export is
    still being written, the answer comes from the previous export, so the age is at
    least that file's."""
    age = age_seconds(read_status(ws.store.path))
    try:
        exported = ws.export.stat().st_mtime
    except OSError:
        return age
    return None if age is None else max(age, round(time.time() - exported, 1))


def health(ws: Workspace) -> dict[str, Any]:
    """Can the store and the export be read, and with which versions of what.

    Not a liveness probe only: every record of every tree is decoded and the export
    passes SQLite's integrity check and the schema check (``maintenance/check``), so
    ``ok`` means sound, and damage is named down to tree and key.
    """
    checked = check_open(ws.store.trees.env, ws.store.path, ws.export)
    store, export = checked["store"], checked["export"]
    try:
        ws.store.get(ws.store.key())
    except RepoctxError as exc:
        store.update(ok=False, error=store.get("error") or str(exc))
    if store["ok"]:
        store.update(format=FORMAT_VERSION, replicaId=ws.store.replica_id)
    try:
        export["schemaVersion"] = ws.reader().meta.schema_version
    except (RepoctxError, ValueError) as exc:  # damaged text fails to decode: ValueError
        export["ok"] = False
        if not ws.export.exists() or not export["problems"]:
            export["error"] = str(exc)
    versions = {"repoctx": metadata.version("repoctx"), "python": platform.python_version(),
                "lmdb": lmdb.version(subpatch=False), "sqlite": sqlite3.sqlite_version}
    return {"ok": store["ok"] and export["ok"], "store": store, "export": export,
            "versions": {k: ".".join(map(str, v)) if isinstance(v, tuple) else v
                         for k, v in versions.items()}}
