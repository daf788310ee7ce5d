"""trees/visibility: which records a reader sees and which compaction may reap."""

import pytest

from repoctx.crdt import lww_register, max_register, record
from repoctx.trees import reapable, visible

T = 1_000_000  # the wall ms the records were written at
GRACE = 100


def rec(value, *, expires=None):
    tick = T << 16
    r = record.write({"f": lww_register.set_value(lww_register.empty(), value, tick, "r")}, tick)
    if expires is not None:
        r = record.merge(r, record.write({record.EXPIRES: max_register.MaxRegister(expires)},
                                         tick))
    return r


LIVE, TOMB = rec("x"), rec(None)


@pytest.mark.parametrize("r, now, seen, reaped", [
    (LIVE, T, True, False),
    (LIVE, T + 10**9, True, False),  # a live record is never reaped
    (rec("x", expires=T + 50), T + 49, True, False),
    (rec("x", expires=T + 50), T + 50, False, False),  # expiry is inclusive
    (rec("x", expires=T + 50), T + 50 + GRACE, False, False),  # grace is strict
    (rec("x", expires=T + 50), T + 51 + GRACE, False, True),
    (TOMB, T, False, False),
    (TOMB, T + GRACE, False, False),
    (TOMB, T + GRACE + 1, False, True),  # a tombstone's age counts from its tick
    (rec(None, expires=T + 10 * GRACE), T + GRACE + 1, False, True),  # not yet expired
    (rec(None, expires=T + 50), T + 51 + GRACE, False, True),
])
def test_truth_table(r, now, seen, reaped):
    assert visible(r, now) is seen
    assert reapable(r, now, GRACE) is reaped
