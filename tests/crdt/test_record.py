import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repoctx.crdt import add_wins_set, lww_register, max_register, or_flag, record
from repoctx.crdt.record import Record
from repoctx.errors import InvalidEncodingError


def lww(value, tick, replica="r1"):
    return lww_register.set_value(lww_register.empty(), value, tick, replica)


record_deltas = st.builds(
    lambda size, tick, el, replica: record.write(
        {"size": lww(size, tick, replica),
         "tags": add_wins_set.add(add_wins_set.empty(), el, replica)}, tick),
    st.integers(0, 5), st.integers(1, 5), st.sampled_from("xyz"), st.sampled_from(["r1", "r2"]),
)


@settings(max_examples=100, deadline=None)
@given(a=record_deltas, b=record_deltas, c=record_deltas)
def test_record_merge_laws(a, b, c):
    assert record.merge(a, b) == record.merge(b, a)
    assert record.encode(record.merge(a, b)) == record.encode(record.merge(b, a))
    assert record.merge(record.merge(a, b), c) == record.merge(a, record.merge(b, c))
    assert record.merge(a, a) == a
    assert record.merge(record.empty(), a) == a
    assert record.decode(record.encode(a)) == a


def test_merge_is_field_wise_and_keeps_untouched_fields():
    a = record.write({"size": lww(1, 10), "name": lww("a.py", 10)}, 10)
    b = record.write({"size": lww(2, 11)}, 11)
    merged = record.value(record.merge(a, b))
    assert merged["size"] == 2 and merged["name"] == "a.py" and merged["$tick"] == 11
    assert record.tick(record.merge(a, b)) == 11


def test_tombstone_means_every_field_empty_but_falsy_values_are_not_empty():
    assert record.is_tombstone(record.write({"size": lww(None, 3)}, 3))
    assert not record.is_tombstone(record.write({"size": lww(0, 3)}, 3))
    flag = or_flag.enable(or_flag.empty(), "r1")
    live = record.write({"on": flag}, 1)
    off = record.merge(live, record.write({"on": or_flag.disable(flag)}, 2))
    assert not record.is_tombstone(live) and record.is_tombstone(off)


def test_meta_fields():
    rec = record.write({"x": lww(1, 1), record.EXPIRES: max_register.MaxRegister(99),
                        record.KEY: lww("repo/a/file/long", 0, "")}, 5)
    assert record.expires_ms(rec) == 99 and record.full_key(rec) == "repo/a/file/long"
    assert record.expires_ms(record.empty()) is None


def test_decode_rejects_what_is_not_a_record():
    for bad in (b"\x01", b"\x93\x01\x02\x03"):
        with pytest.raises(InvalidEncodingError):
            record.decode(bad)
    for bad_field in (b"\x01", b"\x01\x01\x00", b"\x63\x01\x00", b"\x06\x01\x01"):
        with pytest.raises(InvalidEncodingError):
            record.validate(record.decode(record.encode(Record({"x": bad_field}))))


@settings(max_examples=200, deadline=None)
@given(st.tuples(st.integers(0, 2**40), st.sampled_from(["", "a", "ab", "b", "r\u00e9"]),
                 st.one_of(st.none(), st.integers(-3, 3), st.text(max_size=3))),
       st.tuples(st.integers(0, 2**40), st.sampled_from(["", "a", "ab", "b", "r\u00e9"]),
                 st.one_of(st.none(), st.integers(-3, 3), st.text(max_size=3))))
def test_register_byte_order_is_the_merge(a, b):
    ra, rb = lww_register.LwwRegister(*a), lww_register.LwwRegister(*b)
    assert lww_register.decode(max(lww_register.encode(ra), lww_register.encode(rb))) == (
        lww_register.merge(ra, rb))
    ma, mb = max_register.MaxRegister(a[0] - 2**39), max_register.MaxRegister(None)
    for x, y in ((ma, mb), (mb, ma), (ma, max_register.MaxRegister(b[0]))):
        assert max_register.decode(max(max_register.encode(x), max_register.encode(y))) == (
            max_register.merge(x, y))


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.sampled_from([0, 0xC0, 0xC000, 2**64 - 1]), st.integers(0, 2**64 - 1)),
       st.sampled_from(["", "a", "r\u00e9", "\u00c0"]),
       st.one_of(st.none(), st.integers(-2**63, 2**64 - 1), st.text(max_size=3),
                 st.binary(max_size=3), st.lists(st.none(), max_size=2)))
def test_a_register_field_is_empty_exactly_when_it_holds_none(tick, replica, val):
    raw = lww_register.encode(lww_register.LwwRegister(tick, replica, val))
    assert record.is_tombstone(Record({"x": raw})) == (val is None)
