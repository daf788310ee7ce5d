"""reconcile/content_record — the content projection at ``repo/{id}/content/{path}``.

The file's body bounded to ``MAX_CHARS`` characters in an LWW register, with the
digest of the file version it came from. A rebuildable projection: retired (both
fields None) when the file is deleted.
"""

from __future__ import annotations

from repoctx.crdt.record import Record

from .fields import lww_delta, lww_value

MAX_CHARS = 65_536
MAX_READ_BYTES = 4 << 20
"""Files larger than this are never read for projection (left unmarked, re-checked)."""


def bounded_body(text: str) -> str:
    """The stored part of a body."""
    return text[:MAX_CHARS]


def content_delta(current: Record | None, body: str, digest: str, tick: int, replica: str,
                  ) -> Record | None:
    """Delta storing ``body`` (already bounded) for the file version ``digest``."""
    return lww_delta(current, {"body": body, "digest": digest}, tick, replica)


def retire_delta(current: Record | None, tick: int, replica: str) -> Record | None:
    """Delta that retires the projection."""
    return lww_delta(current, {"body": None, "digest": None}, tick, replica)


def body(rec: Record | None) -> str | None:
    """The stored body."""
    return lww_value(rec, "body")
