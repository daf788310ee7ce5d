"""or_map: latest put per key wins; a remove cancels only the puts it observed."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repoctx.crdt import codec
from repoctx.crdt import or_map as m
from repoctx.crdt.tags import OR_MAP
from repoctx.errors import InvalidEncodingError


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


@st.composite
def histories(draw):
    """Replica states after random puts, removes and merges: keys with one put, with
    concurrent puts (several survive), and removed keys."""
    states = [m.empty(), m.empty(), m.empty()]
    for tick in range(draw(st.integers(0, 12))):
        i = draw(st.integers(0, 2))
        key = draw(st.sampled_from(["a", "b", "c"]))
        action = draw(st.sampled_from(["put", "put", "remove", "merge"]))
        if action == "merge":
            states[i] = m.merge(states[i], states[draw(st.integers(0, 2))])
        elif action == "remove" and key in states[i].entries:
            states[i] = m.merge(states[i], m.remove(states[i], key))
        else:
            value = draw(st.sampled_from([1, "x", (1, "y", (2,)), None]))
            states[i] = m.merge(states[i], m.put(states[i], key, value, tick, f"r{i}"))
    return m.merge(m.merge(states[0], states[1]), states[2])


@settings(max_examples=300, deadline=None)
@given(histories(), st.sampled_from(["a", "b", "c", "d"]))
def test_value_of_one_key_is_that_key_of_the_value(state, key):
    assert m.value_of(m.encode(state), key) == m.value(state).get(key)


def test_value_of_refuses_what_decode_refuses():
    with pytest.raises(InvalidEncodingError):
        m.value_of(codec.frame(OR_MAP, [[["k", [["r1", "one", 1, 2]]]], [[], []]]), "k")
    with pytest.raises(InvalidEncodingError):
        m.value_of(b"\x01\x01\x90", "k")
