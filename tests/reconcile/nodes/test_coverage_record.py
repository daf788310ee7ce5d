"""reconcile/nodes/coverage_record: compact line ranges, last measurement wins, merge laws."""

from hypothesis import given
from hypothesis import strategies as st

from repoctx.crdt import lww_register, record
from repoctx.reconcile.nodes import coverage_record as cr


def cov(digest="d1", measured=10, stale=None, tests=(("tests/test_a.py", "test_a", [2, 3]),)):
    return cr.FileCoverage(digest, measured, stale, tuple(
        cr.CoveredLines(path, name, cr.line_ranges(lines)) for path, name, lines in tests))


def merged(*recs):
    out = record.empty()
    for rec in recs:
        out = record.merge(out, rec)
    return out


def test_line_ranges_fold_runs_of_lines():
    assert cr.line_ranges([7, 1, 2, 3, 9, 8]) == ((1, 3), (7, 9))
    assert cr.line_ranges(set()) == ()
    lines = cr.CoveredLines("t.py", "t", ((1, 3), (7, 9)))
    assert lines.hits(3, 5) and lines.hits(9, 20) and not lines.hits(4, 6)


def test_a_delta_reads_back_and_writing_it_again_writes_nothing():
    rec = cr.coverage_delta(None, cov(), 5)
    assert cr.coverage_of(rec) == cov()
    assert cr.coverage_delta(rec, cov(), 6) is None
    assert cr.coverage_of(None) is None


def test_the_newest_measurement_wins_in_any_order_then_the_digest():
    old = cr.coverage_delta(None, cov(measured=10), 9)
    new = cr.coverage_delta(None, cov("d2", measured=20, tests=()), 1)  # an older tick
    assert cr.coverage_of(merged(old, new)) == cr.coverage_of(merged(new, old)) == cov(
        "d2", measured=20, tests=())
    a = cr.coverage_delta(None, cov("a", measured=5), 1)
    b = cr.coverage_delta(None, cov("b", measured=5), 1)
    assert cr.coverage_of(merged(a, b)).digest == cr.coverage_of(merged(b, a)).digest == "b"


def test_retiring_leaves_a_tombstone_that_beats_the_measurement_it_replaces():
    rec = cr.coverage_delta(None, cov(measured=10), 1)
    retired = merged(rec, cr.retire_delta(rec, 10, 2))  # a new data file of the same mtime
    assert record.is_tombstone(retired) and cr.coverage_of(retired) is None
    assert cr.retire_delta(retired, 11, 3) is None
    newer = cr.coverage_delta(None, cov(measured=30), 4)
    assert cr.coverage_of(merged(retired, newer)) == cov(measured=30)


def test_a_value_this_version_cannot_read_is_no_coverage():
    bad = record.write({cr.DATA: lww_register.LwwRegister(1, "x", ["d", "not a time", None,
                                                                   [["t.py", "t", [1]]]])}, 1)
    assert cr.coverage_of(bad) is None
    odd = record.write({cr.DATA: lww_register.LwwRegister(1, "x", 42)}, 1)
    assert cr.coverage_of(odd) is None


_line_sets = st.lists(st.integers(1, 40), max_size=6)
_coverages = st.builds(
    lambda digest, measured, stale, tests: cov(digest, measured, stale, tests),
    st.sampled_from(["d1", "d2", "d3"]), st.integers(0, 4),
    st.sampled_from([None, "newer"]),
    st.lists(st.tuples(st.sampled_from(["tests/a.py", "tests/b.py"]),
                       st.sampled_from(["t1", "t2"]), _line_sets), max_size=3).map(tuple))
_deltas = st.one_of(
    st.builds(lambda c, tick: cr.coverage_delta(None, c, tick), _coverages, st.integers(1, 9)),
    st.builds(lambda c, at, tick: cr.retire_delta(cr.coverage_delta(None, c, 1), at, tick),
              _coverages, st.integers(0, 4), st.integers(1, 9)))


@given(_deltas, _deltas, _deltas)
def test_merge_is_commutative_associative_and_idempotent(a, b, c):
    assert record.merge(a, b) == record.merge(b, a)
    assert record.merge(record.merge(a, b), c) == record.merge(a, record.merge(b, c))
    assert record.merge(a, a) == a and record.merge(record.empty(), a) == a


@given(st.lists(_coverages, min_size=1, max_size=5), st.randoms())
def test_the_merge_of_any_delivery_order_holds_the_latest_measurement(covs, rnd):
    deltas = [cr.coverage_delta(None, c, i + 1) for i, c in enumerate(covs)]
    shuffled = deltas[:]
    rnd.shuffle(shuffled)
    latest = max(covs, key=lambda c: (c.measured_ns, c.digest))
    got = cr.coverage_of(merged(*shuffled))
    assert (got.measured_ns, got.digest) == (latest.measured_ns, latest.digest)
    assert merged(*shuffled) == merged(*deltas)
