"""cli/output — what a command prints, and its exit status, without click.

Shared by ``common`` (the click commands) and ``entry.dispatch`` (a plain ``repoctx
index``, run without importing click), so both print and fail alike.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from repoctx.errors import RepoctxError, StoreBusyError, disk_full

EXIT_ERROR, EXIT_USAGE, EXIT_BUSY = 1, 2, 75

ABORTED = "repoctx: aborted"
"""The line for a command interrupted (Ctrl-C); its exit status is ``EXIT_ERROR``."""


def rendered(payload: Any, as_json: bool, text: Callable[[Any], str]) -> str:
    """``payload`` as every command prints JSON, else through ``text``. One style for all:
    compact, on one line, in the answer's own key order, non-ASCII kept; the bytes a tool
    answer's token count was charged on (``tools.registry.serialize``)."""
    if not as_json:
        return text(payload)
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)


def failure(exc: Exception) -> tuple[str, int]:
    """The one line for stderr and the exit status of ``exc``: a ``RepoctxError`` says
    what was wrong (status 75 when the store is busy, else 1); anything else is a bug,
    named as such, re-raised when ``REPOCTX_DEBUG`` is set so its traceback shows."""
    if isinstance(exc, RepoctxError):
        return f"repoctx: {exc}", EXIT_BUSY if isinstance(exc, StoreBusyError) else EXIT_ERROR
    full = disk_full(exc, getattr(exc, "filename", None) or Path.cwd())
    if full is not None:  # the disk, not a bug: wherever the write came from
        return f"repoctx: {full}", EXIT_ERROR
    if os.environ.get("REPOCTX_DEBUG"):
        raise exc
    return (f"repoctx: internal error: {type(exc).__name__}: {exc} (this is a bug; "
            "REPOCTX_DEBUG=1 shows the traceback)"), EXIT_ERROR
