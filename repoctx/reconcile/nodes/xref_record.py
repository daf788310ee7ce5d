"""reconcile/nodes/xref_record — the reverse cross-reference node at ``repo/{id}/xref/{name}``.

Per referenced simple name, two add-wins sets: ``dependents`` (symbols whose
declarations reference the name) and ``tests`` (test symbols covering it); and one
add-wins set per qualified spelling the referencing files give the name,
``to:<spelling>`` (``to:flask.helpers.url_for``: symbols whose file says the name is
that one). The node is pruned — a tombstone — once every set is empty. The key is the
simple name: which definition a spelling means is decided at query time.
"""

from __future__ import annotations

from repoctx.crdt import add_wins_set, record
from repoctx.crdt.record import Record
from repoctx.reconcile.nodes.fields import set_change

DEPENDENTS, TESTS = "dependents", "tests"
TARGET_PREFIX = "to:"


def target_field(spelling: str) -> str:
    """The field holding the symbols that spell the node's name as ``spelling``."""
    return TARGET_PREFIX + spelling


def targets(rec: Record | None) -> dict[str, frozenset[str]]:
    """Qualified spelling -> the symbols that spell the node's name so."""
    if rec is None:
        return {}
    out = {}
    for name in rec.fields:
        if name.startswith(TARGET_PREFIX):
            found = members(rec, name)
            if found:
                out[name[len(TARGET_PREFIX):]] = found
    return out


def members(rec: Record | None, relation: str) -> frozenset[str]:
    """The symbols on one side of the node."""
    return add_wins_set.value(record.field_state(rec, relation, add_wins_set))


def change_delta(current: Record | None, changes: dict[str, tuple[set[str], set[str]]],
                 tick: int, replica: str) -> tuple[Record | None, int]:
    """One delta adding and removing edges per relation (``{relation: (adds, removes)}``).

    Adds already present and removes already absent are dropped, so re-applying the
    same change writes nothing. Returns the delta (None when empty) and the edge count.
    """
    states, count = {}, 0
    for relation, (adds, removes) in sorted(changes.items()):
        state = record.field_state(current, relation, add_wins_set)
        delta, changed = set_change(state, adds, removes, replica)
        if delta is not None:
            states[relation] = delta
            count += changed
    return (record.write(states, tick) if states else None), count
