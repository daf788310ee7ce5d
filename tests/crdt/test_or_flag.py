"""or_flag: enable wins over a concurrent disable; a disable turns off what it saw."""

from repoctx.crdt import or_flag as f


def test_or_flag_enable_wins():
    on = f.merge(f.empty(), f.enable(f.empty(), "r1"))
    off = f.merge(on, f.disable(on))
    again = f.merge(on, f.enable(on, "r2"))
    assert f.value(f.merge(off, again)) is True
    assert f.value(f.merge(off, on)) is False


def test_empty_flag_is_off_and_round_trips():
    assert f.value(f.empty()) is False
    on = f.merge(f.empty(), f.enable(f.empty(), "r1"))
    assert f.decode(f.encode(on)) == on and f.value(on) is True
