"""reconcile/nodes/fields — the small vocabulary the record modules share.

LWW fields written at one tick by one replica, read back as plain values. Every
record module of the reconcile builds its deltas through ``lww_delta`` so "write
only what changed" is decided in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from repoctx.crdt import add_wins_set, lww_register, record
from repoctx.crdt.add_wins_set import AddWinsSet
from repoctx.crdt.record import Record


def lww_value(rec: Record | None, name: str) -> Any:
    """The plain value of an LWW field (``None`` when absent)."""
    return record.field_state(rec, name, lww_register).value


def lww_delta(current: Record | None, values: Mapping[str, Any], tick: int, replica: str,
              ) -> Record | None:
    """A delta writing the fields of ``values`` that differ from ``current``, or None."""
    changed = {name: lww_register.set_value(lww_register.EMPTY, value, tick, replica)
               for name, value in values.items() if lww_value(current, name) != value}
    return record.write(changed, tick) if changed else None


def set_change(state: AddWinsSet, adds: set[str], removes: set[str], replica: str,
               ) -> tuple[AddWinsSet | None, int]:
    """One delta adding and removing elements of an add-wins set, and how many changed.

    Adds already present and removes already absent are dropped, so re-applying the
    same change changes nothing (None).
    """
    adds = {a for a in adds if a not in state.entries}
    removes = {r for r in removes if r in state.entries}
    if not adds and not removes:
        return None, 0
    delta = add_wins_set.add_all(state, adds, replica)
    if removes:
        delta = add_wins_set.merge(delta, add_wins_set.remove_all(state, removes))
    return delta, len(adds) + len(removes)
