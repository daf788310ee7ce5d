"""cli_failure — what a command that raised prints, and its exit status, without click.

Shared by ``cli_common.fails_cleanly`` (click commands) and ``cli.dispatch`` (a plain
``repoctx index``, run without importing click), so both fail alike.
"""

from __future__ import annotations

import os

from repoctx.errors import RepoctxError, StoreBusyError

EXIT_ERROR, EXIT_BUSY = 1, 75


def failure(exc: Exception) -> tuple[str, int]:
    """The one line for stderr and the exit status of ``exc``: a ``RepoctxError`` says
    what was wrong (status 75 when the store is busy, else 1); anything else is a bug,
    named as such, re-raised when ``REPOCTX_DEBUG`` is set so its traceback shows."""
    if isinstance(exc, RepoctxError):
        return f"repoctx: {exc}", EXIT_BUSY if isinstance(exc, StoreBusyError) else EXIT_ERROR
    if os.environ.get("REPOCTX_DEBUG"):
        raise exc
    return (f"repoctx: internal error: {type(exc).__name__}: {exc} (this is a bug; "
            "REPOCTX_DEBUG=1 shows the traceback)"), EXIT_ERROR
