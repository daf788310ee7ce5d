"""session/session_record — the session record at ``repo/{id}/session/{sessionId}``.

The one module that builds or reads the record's shape (seed 003 "Session reuse
bookkeeping"). Two grow-only ``TtlSet`` fields: ``receipts`` (opaque receipts of the
units a ``repocontext_context`` call delivered) and ``possession`` (``path@contentHash``
versions delivered as a complete body). Merge is the record's field-wise merge: union,
each element keeping its later expiry, so concurrent calls sharing a session converge.
Every delivery re-adds its elements until ``now + ttl`` and raises the record's
``$expires`` to the same time (a sliding TTL): an abandoned session's record lapses,
is hidden on read and reaped by compaction. Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from repoctx.crdt import Record, max_register, record, ttl_set

RECEIPTS, POSSESSION = "receipts", "possession"
SESSION_TTL_MS = 6 * 3_600_000
"""Default time-to-live of a session's bookkeeping: six hours after its last delivery."""


@dataclass(frozen=True, slots=True)
class SessionView:
    """What a session holds at one time: live receipts and live whole-file possession."""

    receipts: frozenset[str] = frozenset()
    possession: frozenset[str] = frozenset()


EMPTY_VIEW = SessionView()


def possession_claim(path: str, content_hash: str) -> str:
    """The possession element of one whole-file version: ``path@contentHash``."""
    return f"{path}@{content_hash}"


def split_claim(claim: str) -> tuple[str, str] | None:
    """``(path, contentHash)`` of a ``path@contentHash`` claim, or None when malformed.

    The hash is after the last ``@`` (paths may contain ``@``; hex digests never do).
    """
    path, sep, content_hash = claim.rpartition("@")
    if not sep or not path or not content_hash:
        return None
    return path, content_hash


def view(rec: Record | None, now_ms: int) -> SessionView:
    """The live receipts and possession of a (visible) session record at ``now_ms``."""
    if rec is None:
        return EMPTY_VIEW
    return SessionView(ttl_set.live(record.field_state(rec, RECEIPTS, ttl_set), now_ms),
                       ttl_set.live(record.field_state(rec, POSSESSION, ttl_set), now_ms))


def delivery_delta(receipts: Iterable[str], possessions: Iterable[str], now_ms: int,
                   tick: int, ttl_ms: int = SESSION_TTL_MS) -> Record | None:
    """Delta recording one delivery: every element live until ``now_ms + ttl_ms``.

    The record's expiry moves to the same time, so the record lapses together with its
    latest element and is reaped once the session goes quiet. None when there is
    nothing to record.
    """
    expires = now_ms + ttl_ms
    receipts_state = _ttl_state(receipts, expires)
    possession_state = _ttl_state(possessions, expires)
    if not receipts_state.expiries and not possession_state.expiries:
        return None
    delta = record.write({RECEIPTS: receipts_state, POSSESSION: possession_state}, tick)
    expiry = Record({record.EXPIRES: max_register.encode(max_register.MaxRegister(expires))})
    return record.merge(delta, expiry)


def _ttl_state(elements: Iterable[str], expires_ms: int) -> ttl_set.TtlSet:
    return ttl_set.TtlSet(dict.fromkeys(elements, expires_ms))
