"""max_register: the value only rises; None is below every integer."""

from repoctx.crdt import max_register as mr


def test_max_register_none_is_bottom():
    assert mr.value(mr.merge(mr.empty(), mr.raise_to(mr.empty(), -3))) == -3


def test_merge_keeps_the_larger_value():
    a, b = mr.raise_to(mr.empty(), 4), mr.raise_to(mr.empty(), 9)
    assert mr.value(mr.merge(a, b)) == mr.value(mr.merge(b, a)) == 9
    assert mr.decode(mr.encode(b)) == b
