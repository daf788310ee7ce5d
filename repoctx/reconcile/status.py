"""reconcile/status — what the last (or current) pass is doing, beside the store.

A small JSON file (``index-status.json``) outside LMDB, so reporting progress never
costs a write transaction and an unchanged re-index still writes nothing to the
trees. Written whole and renamed into place: readers never see half a file. The time
the last pass finished (``finishedAt``, Unix seconds) is carried over into every later
status until the next pass finishes, so ``age_seconds`` says how old the committed index
is even while a pass runs or after one failed.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from repoctx.errors import disk_full

STATUS_NAME = "index-status.json"


def write_status(store_dir: Path, status: dict[str, Any]) -> None:
    """Replace the status file with ``status``."""
    if "finishedAt" not in status and "finishedAt" in (last := read_status(store_dir)):
        status = {**status, "finishedAt": last["finishedAt"]}
    tmp = store_dir / f".{STATUS_NAME}.{os.getpid()}"
    try:
        tmp.write_text(json.dumps(status, sort_keys=True))
        os.replace(tmp, store_dir / STATUS_NAME)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        full = disk_full(exc, store_dir)
        if full is not None:
            raise full from exc
        raise


def read_status(store_dir: Path) -> dict[str, Any]:
    """The last status written ({} when none, or unreadable)."""
    try:
        return json.loads((store_dir / STATUS_NAME).read_text())
    except (OSError, ValueError):
        return {}  # no status yet is a normal answer, not an error


def age_seconds(status: dict[str, Any], now: float | None = None) -> float | None:
    """Seconds since the pass behind ``status`` (``read_status``) finished; None when no
    pass of this version has finished."""
    finished = status.get("finishedAt")
    if not isinstance(finished, int | float):
        return None
    return round(max(0.0, (time.time() if now is None else now) - finished), 1)
