"""reconcile/nodes/fields: write only the LWW fields that changed; no-op set changes vanish."""

from repoctx.crdt import add_wins_set, record
from repoctx.reconcile.nodes.fields import lww_delta, lww_value, set_change


def test_lww_delta_writes_only_changed_fields():
    first = lww_delta(None, {"a": 1, "b": "x"}, 10, "r1")
    assert record.value(first) | {"$tick": 0} == {"a": 1, "b": "x", "$tick": 0}
    second = lww_delta(first, {"a": 1, "b": "y", "c": None}, 11, "r1")
    assert set(second.fields) == {"b", "$tick"}  # a unchanged, c already reads None
    assert lww_value(record.merge(first, second), "b") == "y"
    assert record.tick(second) == 11


def test_lww_delta_of_nothing_new_is_none():
    first = lww_delta(None, {"a": (1, 2)}, 10, "r1")
    assert lww_delta(first, {"a": (1, 2)}, 11, "r1") is None
    assert lww_delta(None, {"a": None}, 10, "r1") is None
    assert lww_value(None, "a") is None


def test_set_change_drops_no_op_adds_and_removes():
    state = add_wins_set.merge(add_wins_set.empty(),
                               add_wins_set.add_all(add_wins_set.empty(), ["a", "b"], "r1"))
    delta, count = set_change(state, {"a", "c"}, {"b", "zz"}, "r1")
    assert count == 2  # adds c, removes b; a already there, zz never was
    after = add_wins_set.merge(state, delta)
    assert add_wins_set.value(after) == {"a", "c"}
    assert set_change(after, {"a", "c"}, {"b", "zz"}, "r1") == (None, 0)
