"""reconcile/nodes/xref_record: two add-wins sets per name, pruned when both are empty."""

from repoctx.crdt import record
from repoctx.reconcile.nodes.xref_record import (
    DEPENDENTS,
    TESTS,
    change_delta,
    members,
    target_field,
    targets,
)


def test_change_delta_adds_and_removes_per_relation():
    rec, count = change_delta(None, {DEPENDENTS: ({"a.X", "a.Y"}, set()),
                                     TESTS: ({"t.T"}, {"t.Gone"})}, 1, "r1")
    assert count == 3
    assert members(rec, DEPENDENTS) == {"a.X", "a.Y"} and members(rec, TESTS) == {"t.T"}
    assert change_delta(rec, {DEPENDENTS: ({"a.X"}, {"zz"})}, 2, "r1") == (None, 0)
    delta, count = change_delta(rec, {DEPENDENTS: (set(), {"a.X", "a.Y"})}, 2, "r1")
    rec = record.merge(rec, delta)
    assert count == 2 and members(rec, DEPENDENTS) == frozenset()
    assert not record.is_tombstone(rec)
    rec = record.merge(rec, change_delta(rec, {TESTS: (set(), {"t.T"})}, 3, "r1")[0])
    assert record.is_tombstone(rec) and members(None, TESTS) == frozenset()


def test_spelling_fields_are_per_target_sets():
    rec, count = change_delta(None, {target_field("a.f"): ({"m.X", "m.Y"}, set()),
                                     target_field("b.f"): ({"m.Z"}, set()),
                                     DEPENDENTS: ({"m.X"}, set())}, 1, "r1")
    assert count == 4 and targets(rec) == {"a.f": {"m.X", "m.Y"}, "b.f": {"m.Z"}}
    rec = record.merge(rec, change_delta(rec, {target_field("b.f"): (set(), {"m.Z"})},
                                         2, "r1")[0])
    assert targets(rec) == {"a.f": {"m.X", "m.Y"}} and targets(None) == {}
