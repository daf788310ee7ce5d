"""add_wins_set: a concurrent add beats a remove that did not observe it; bulk ops; the
encoded merge (an add spliced into a stored set) equals the merge of the states."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repoctx.crdt import add_wins_set as s
from repoctx.crdt import codec, or_flag
from repoctx.crdt.tags import ADD_WINS_SET
from repoctx.errors import InvalidEncodingError, PreconditionError


def test_remove_never_beats_an_unobserved_concurrent_add():
    base = s.add(s.empty(), "x", "r1")
    r1 = s.merge(base, s.remove(base, "x"))  # r1 removes the add it saw
    r2 = s.merge(base, s.add(base, "x", "r2"))  # r2 re-adds concurrently
    assert s.value(s.merge(r1, r2)) == {"x"}
    assert s.value(s.merge(r2, r1)) == {"x"}


def test_bulk_add_and_remove_equal_one_at_a_time_in_value():
    many = s.merge(s.empty(), s.add_all(s.empty(), ["a", "b", "c"], "r1"))
    assert s.value(many) == {"a", "b", "c"}
    assert many.context.vv == {"r1": 3}  # consecutive dots compact into the vector
    fewer = s.merge(many, s.remove_all(many, ["a", "c"]))
    assert s.value(fewer) == {"b"}
    again = s.merge(fewer, s.add_all(fewer, ["b", "d"], "r2"))
    assert s.value(again) == {"b", "d"} and again.entries["b"] == (("r2", 1),)


def test_removing_an_absent_element_is_a_precondition_error():
    one = s.merge(s.empty(), s.add(s.empty(), "a", "r1"))
    with pytest.raises(PreconditionError, match="zzz"):
        s.remove(one, "zzz")


def test_decode_refuses_another_types_bytes():
    with pytest.raises(InvalidEncodingError):
        s.decode(or_flag.encode(or_flag.empty()))


@st.composite
def states_and_deltas(draw):
    """States and the deltas that made them, from random adds and removes on any state."""
    seen = [s.empty()]
    for _ in range(draw(st.integers(1, 12))):
        base = draw(st.sampled_from(seen))
        if base.entries and draw(st.booleans()):
            delta = s.remove(base, draw(st.sampled_from(sorted(base.entries))))
        else:
            delta = s.add_all(base, draw(st.sets(st.sampled_from("abcde"), min_size=1)),
                              draw(st.sampled_from(["r1", "r2", "r3"])))
        seen += [delta, s.merge(base, delta)]
    return seen


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_merge_encoded_is_the_encoded_merge(data):
    seen = data.draw(states_and_deltas())
    a, b = data.draw(st.sampled_from(seen)), data.draw(st.sampled_from(seen))
    assert s.merge_encoded(s.encode(a), s.encode(b)) == s.encode(s.merge(a, b))


def test_an_add_into_a_set_is_spliced_without_building_the_merge(monkeypatch):
    base = s.merge(s.empty(), s.add_all(s.empty(), ["a", "c", "e"], "r1"))
    delta = s.add_all(base, ["b", "f"], "r2")
    expected = s.encode(s.merge(base, delta))
    monkeypatch.setattr(s, "merge", None)  # the general path would call it
    assert s.merge_encoded(s.encode(base), s.encode(delta)) == expected
    assert s.merge_encoded(s.encode(delta), s.encode(base)) == expected


@st.composite
def stored_and_adds(draw):
    """A stored set of up to 40 elements (past the 15 of a one-byte msgpack header), and
    adds of new or present elements made on it or on an older state of it (concurrent)."""
    names = [f"f{i:02}" for i in range(48)]
    history = [s.empty()]
    stored = s.empty()
    for _ in range(draw(st.integers(0, 4))):
        elements = draw(st.sets(st.sampled_from(names), min_size=1, max_size=12))
        replica = draw(st.sampled_from(["r1", "r2"]))
        stored = s.merge(stored, s.add_all(stored, elements, replica))
        if stored.entries and draw(st.booleans()):
            gone = draw(st.sampled_from(sorted(stored.entries)))
            stored = s.merge(stored, s.remove(stored, gone))
        history.append(stored)
    base = draw(st.sampled_from(history))
    adds = draw(st.sets(st.sampled_from(names), min_size=1, max_size=3))
    delta = s.add_all(base, adds, draw(st.sampled_from(["r1", "r2", "r3"])))
    return stored, delta


@settings(max_examples=400, deadline=None)
@given(stored_and_adds())
def test_an_add_merged_into_its_encoding_is_the_encoded_merge(pair):
    stored, delta = pair
    expected = s.encode(s.merge(stored, delta))
    assert s.merge_encoded(s.encode(stored), s.encode(delta)) == expected
    assert s.merge_encoded(s.encode(delta), s.encode(stored)) == expected


@pytest.mark.parametrize("size", [3, 15, 16, 40])
@pytest.mark.parametrize("element", ["a", "m01x", "m12x", "z"])
def test_one_add_anywhere_is_spliced_into_the_stored_bytes(monkeypatch, size, element):
    base = s.merge(s.empty(), s.add_all(s.empty(), [f"m{i:02}" for i in range(size)], "r1"))
    delta = s.add(base, element, "r1")
    expected, stored, added = s.encode(s.merge(base, delta)), s.encode(base), s.encode(delta)
    monkeypatch.setattr(s, "merge", None)  # the general path would call it
    monkeypatch.setattr(codec, "frame", None)  # and packing every entry again would too
    assert s.merge_encoded(stored, added) == expected
    assert s.merge_encoded(added, stored) == expected
    assert s.merge_encoded(memoryview(stored), added) == expected


@pytest.mark.parametrize("body", [
    ((("a", ()),), ((), ())),  # an element without dots: carried along, refused on decode
    ((1, 2), ((), ())),
    ((("a", (("r1", 1),)),), (((1, "r1"),), ())),
    (("a", (("r1", 1),)), ((), ())),
    ({("z", (("r9", 1),)): 1}, ((), ())),
    {"a": 1},
    ("x", "y"),
])
def test_a_malformed_set_is_still_refused_whichever_side_it_is(body):
    bad = codec.frame(ADD_WINS_SET, body)
    small = s.add(s.empty(), "b", "r2")
    big = s.merge(s.empty(), s.add_all(s.empty(), [f"element{i}" for i in range(9)], "r3"))
    for good in (small, big):
        for pair in ((bad, s.encode(good)), (s.encode(good), bad)):
            with pytest.raises(InvalidEncodingError):
                s.decode(s.merge_encoded(*pair))
