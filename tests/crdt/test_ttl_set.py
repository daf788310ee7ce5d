"""ttl_set: each element keeps its latest expiry; ``live`` filters by time."""

from repoctx.crdt import ttl_set as t


def test_ttl_set_keeps_later_expiry_and_filters_live():
    s = t.merge(t.add(t.empty(), "a", 100), t.add(t.empty(), "a", 50))
    s = t.merge(s, t.add(s, "b", 10))
    assert s.expiries == {"a": 100, "b": 10}
    assert t.live(s, 20) == {"a"}


def test_an_element_expiring_exactly_now_is_no_longer_live():
    s = t.add(t.empty(), "a", 20)
    assert t.live(s, 19) == {"a"} and t.live(s, 20) == frozenset()
    assert t.value(s) == {"a"}  # value ignores time
