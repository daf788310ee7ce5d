"""vectors/records/membership_record — vector membership at ``repo/{id}/vmem/...`` (seed 003).

``vmem/{sourceId}``: is the source embedded; ``vmem/nil-{sourceId}``: the source was
read and has nothing to embed (so the gap scan stops re-driving it);
``vmem/memkey-{memoryKey}``: a memory entry was embedded under its own record key (so
vectors orphaned by its expiry are found by comparing recorded keys with live ones).
All three are add-wins flags (``crdt.or_flag``), one per embedding space, held in a
field named by the space fingerprint: an embed enables, a retire disables only the
enables it observed (a causal tombstone, never a key delete), so a retire converges
add-wins against a concurrent re-embed elsewhere, and a store embedding with another
model never reads this space's flags as its own.
"""

from __future__ import annotations

from repoctx.crdt import or_flag, record
from repoctx.crdt.record import Record
from repoctx.trees import make_key

FAMILY = "vmem"
NIL, MEMKEY = "nil-", "memkey-"


def member_key(repo_id: str, sid: str) -> str:
    """``repo/{repoId}/vmem/{sourceId}``."""
    return make_key(repo_id, FAMILY, sid)


def nil_key(repo_id: str, sid: str) -> str:
    """``repo/{repoId}/vmem/nil-{sourceId}``."""
    return make_key(repo_id, FAMILY, NIL + sid)


def memkey_key(repo_id: str, memory_key: str) -> str:
    """``repo/{repoId}/vmem/memkey-{memoryKey}``."""
    return make_key(repo_id, FAMILY, MEMKEY + memory_key)


def marker_kind(rest: str) -> tuple[str, str]:
    """``("member" | "nil" | "memkey", name)`` of the part of a vmem key after ``vmem/``."""
    for prefix, kind in ((NIL, "nil"), (MEMKEY, "memkey")):
        if rest.startswith(prefix):
            return kind, rest[len(prefix):]
    return "member", rest


def is_on(rec: Record | None, space: str) -> bool:
    """True when the flag of ``space`` is enabled."""
    return or_flag.value(record.field_state(rec, space, or_flag))


def enable_delta(current: Record | None, space: str, tick: int, replica: str,
                 ) -> Record | None:
    """Delta enabling the flag of ``space`` (None when it is already on)."""
    state = record.field_state(current, space, or_flag)
    if or_flag.value(state):
        return None
    return record.write({space: or_flag.enable(state, replica)}, tick)


def disable_delta(current: Record | None, space: str, tick: int) -> Record | None:
    """Delta disabling the enables of ``space`` observed here (None when it is off)."""
    state = record.field_state(current, space, or_flag)
    if not or_flag.value(state):
        return None
    return record.write({space: or_flag.disable(state)}, tick)
