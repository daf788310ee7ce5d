"""reconcile/status — what the last (or current) pass is doing, beside the store.

A small JSON file (``index-status.json``) outside LMDB, so reporting progress never
costs a write transaction and an unchanged re-index still writes nothing to the
trees. Written whole and renamed into place: readers never see half a file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from repoctx.errors import disk_full

STATUS_NAME = "index-status.json"


def write_status(store_dir: Path, status: dict[str, Any]) -> None:
    """Replace the status file with ``status``."""
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
