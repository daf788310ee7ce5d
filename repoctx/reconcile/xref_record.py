"""reconcile/xref_record — the reverse cross-reference node at ``repo/{id}/xref/{name}``.

Per referenced simple name, two add-wins sets: ``dependents`` (symbols whose
declarations reference the name) and ``tests`` (test symbols covering it). The node
is pruned — a tombstone — once both sets are empty. Edges are keyed by simple name:
two types sharing a name are not told apart (syntactic extraction, as in seed 003).
"""

from __future__ import annotations

from repoctx.crdt import add_wins_set, record
from repoctx.crdt.record import Record

DEPENDENTS, TESTS = "dependents", "tests"


def members(rec: Record | None, relation: str) -> frozenset[str]:
    """The symbols on one side of the node."""
    return add_wins_set.value(record.field_state(rec, relation, add_wins_set))


def add_delta(current: Record | None, relation: str, symbol: str, tick: int, replica: str,
              ) -> Record | None:
    """Delta adding an edge (None when it is already there)."""
    state = record.field_state(current, relation, add_wins_set)
    if symbol in state.entries:
        return None
    return record.write({relation: add_wins_set.add(state, symbol, replica)}, tick)


def remove_delta(current: Record | None, relation: str, symbol: str, tick: int,
                 ) -> Record | None:
    """Delta removing an edge (None when it is not there)."""
    state = record.field_state(current, relation, add_wins_set)
    if symbol not in state.entries:
        return None
    return record.write({relation: add_wins_set.remove(state, symbol)}, tick)
