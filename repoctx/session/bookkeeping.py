"""session/bookkeeping — read and write one session's reuse bookkeeping in a store.

Session ids are caller-chosen names: at most 128 characters, no ``/`` and no control
characters (anything else is a ``ToolError`` naming ``session``). Reads go through a
snapshot at the caller's ``now_ms``, so an expired record is invisible and expired
elements are dropped; writes are a read-merge-write of a delivery delta.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from repoctx.errors import ToolError
from repoctx.store import Store
from repoctx.trees import Batch

from . import session_record
from .session_record import SESSION_TTL_MS, SessionView

FAMILY = "session"
MAX_SESSION_ID = 128
_BAD = re.compile(r"[\x00-\x1f\x7f/]")


def check_session_id(session_id: object) -> str:
    """Return ``session_id`` when it is a valid session name, else raise ``ToolError``."""
    if not isinstance(session_id, str) or not session_id:
        raise ToolError(f"session: must be a non-empty string (got {session_id!r})")
    if len(session_id) > MAX_SESSION_ID or _BAD.search(session_id):
        raise ToolError(f"session: at most {MAX_SESSION_ID} characters, without '/' or "
                        f"control characters (got {session_id[:40]!r})")
    return session_id


def session_key(store: Store, session_id: str) -> str:
    """The key of a session's record in ``store``'s repository."""
    return store.key(FAMILY, check_session_id(session_id))


def session_view(store: Store, session_id: str, now_ms: int) -> SessionView:
    """What the session ``session_id`` holds at ``now_ms`` (empty when unknown or expired)."""
    key = session_key(store, session_id)
    with store.snapshot(now_ms) as snap:
        return session_record.view(snap.get(key), now_ms)


def record_delivery(store: Store, session_id: str, receipts: Iterable[str],
                    possessions: Iterable[str], now_ms: int, *, batch: Batch | None = None,
                    ttl_ms: int = SESSION_TTL_MS) -> bool:
    """Record a delivery in the session; returns False when there was nothing to record.

    Writes inside ``batch`` when given, else in a batch of its own.
    """
    key = session_key(store, session_id)
    delta = session_record.delivery_delta(receipts, possessions, now_ms, store.tick(), ttl_ms)
    if delta is None:
        return False
    if batch is not None:
        batch.merge(key, delta)
    else:
        with store.batch() as own:
            own.merge(key, delta)
    return True
