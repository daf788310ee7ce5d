"""trees/visibility — which stored records a reader sees, and which compaction reaps.

A tombstone (every field empty) and a record past its expiry are hidden on read;
compaction reaps them once they are older than the tree's grace period — a
tombstone's age counts from the tick that wrote it, an expired record's from its
expiry. Pure functions of a record and the time.
"""

from __future__ import annotations

from repoctx.crdt import record, tick_ms
from repoctx.crdt.record import Record


def visible(rec: Record, now_ms: int) -> bool:
    """True when a reader should see ``rec`` at ``now_ms``."""
    expires = record.expires_ms(rec)
    if expires is not None and expires <= now_ms:
        return False
    return not record.is_tombstone(rec)


def reapable(rec: Record, now_ms: int, grace_ms: int) -> bool:
    """True when ``rec`` is hidden and has been for longer than ``grace_ms``."""
    expires = record.expires_ms(rec)
    if expires is not None and expires <= now_ms:
        return now_ms - expires > grace_ms
    return record.is_tombstone(rec) and now_ms - tick_ms(record.tick(rec)) > grace_ms
