"""or_map: latest put per key wins; a remove cancels only the puts it observed."""

from repoctx.crdt import or_map as m


def test_or_map_removed_value_never_resurfaces():
    a = m.merge(m.empty(), m.put(m.empty(), "k", "new", 10, "r1"))
    b = m.merge(m.empty(), m.put(m.empty(), "k", "old", 5, "r2"))
    both = m.merge(a, b)
    assert m.value(both) == {"k": "new"}
    a_removed = m.merge(a, m.remove(a, "k"))
    assert m.value(m.merge(both, a_removed)) == {"k": "old"}


def test_a_later_put_on_one_replica_replaces_its_earlier_one():
    one = m.merge(m.empty(), m.put(m.empty(), "k", 1, 1, "r1"))
    two = m.merge(one, m.put(one, "k", 2, 2, "r1"))
    assert m.value(two) == {"k": 2}
    assert m.value(m.merge(two, m.remove(two, "k"))) == {}
