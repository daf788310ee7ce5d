"""lww_register: the highest (tick, replica) wins."""

from repoctx.crdt import lww_register as r


def test_lww_same_tick_breaks_ties_by_replica():
    x, y = r.set_value(r.empty(), "x", 7, "r1"), r.set_value(r.empty(), "y", 7, "r2")
    assert r.value(r.merge(x, y)) == r.value(r.merge(y, x)) == "y"


def test_a_later_tick_wins_whatever_the_replica():
    old = r.set_value(r.empty(), "old", 5, "zz")
    new = r.set_value(r.empty(), "new", 6, "aa")
    assert r.value(r.merge(old, new)) == r.value(r.merge(new, old)) == "new"
    assert r.value(r.empty()) is None


def test_holds_empty_reads_none_off_the_bytes():
    for value, empty in ((None, True), (0, False), ("", False), ([None], False)):
        raw = r.encode(r.set_value(r.empty(), value, 7, "replica-a"))
        assert r.holds_empty(raw) is empty
    assert r.holds_empty(r.encode(r.empty()))
