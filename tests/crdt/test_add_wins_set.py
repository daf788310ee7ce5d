"""add_wins_set: a concurrent add beats a remove that did not observe it; bulk ops."""

import pytest

from repoctx.crdt import add_wins_set as s
from repoctx.crdt import or_flag
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
