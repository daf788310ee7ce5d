"""The session record: shape, sliding TTL, union merge."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from repoctx.crdt import record
from repoctx.session import SESSION_TTL_MS, possession_claim, session_record, split_claim
from repoctx.session.session_record import EMPTY_VIEW, delivery_delta, view

NOW = 1_700_000_000_000


def test_delivery_delta_adds_until_now_plus_ttl_and_sets_the_record_expiry():
    rec = delivery_delta(["r1", "r2"], ["a.py@h"], NOW, tick=5)
    assert record.expires_ms(rec) == NOW + SESSION_TTL_MS
    got = view(rec, NOW)
    assert got.receipts == {"r1", "r2"}
    assert got.possession == {"a.py@h"}


def test_nothing_to_record_is_no_delta():
    assert delivery_delta([], [], NOW, tick=1) is None


def test_elements_expire_after_the_ttl():
    rec = delivery_delta(["r1"], [], NOW, tick=1)
    assert view(rec, NOW + SESSION_TTL_MS - 1).receipts == {"r1"}
    assert view(rec, NOW + SESSION_TTL_MS).receipts == frozenset()


def test_a_later_delivery_slides_the_ttl_of_the_elements_it_repeats():
    first = delivery_delta(["r1", "r2"], [], NOW, tick=1)
    later = delivery_delta(["r1"], [], NOW + 1000, tick=2)
    merged = record.merge(first, later)
    assert record.expires_ms(merged) == NOW + 1000 + SESSION_TTL_MS
    assert view(merged, NOW + SESSION_TTL_MS).receipts == {"r1"}


def test_missing_record_is_the_empty_view():
    assert view(None, NOW) == EMPTY_VIEW


def test_claims_round_trip_and_paths_may_hold_at_signs():
    assert split_claim(possession_claim("a@b/c.py", "ff00")) == ("a@b/c.py", "ff00")
    for bad in ("nohash", "@ff", "a.py@"):
        assert split_claim(bad) is None


names = st.frozensets(st.sampled_from(["a", "b", "c", "d"]), max_size=4)
times = st.integers(min_value=0, max_value=10**6)


@given(st.lists(st.tuples(names, names, times), min_size=1, max_size=5), st.randoms())
def test_merge_of_deliveries_is_a_union_in_any_order(deliveries, rnd):
    deltas = [delivery_delta(r, p, t, tick=i + 1) for i, (r, p, t) in enumerate(deliveries)]
    deltas = [d for d in deltas if d is not None]
    if not deltas:
        return
    shuffled = list(deltas)
    rnd.shuffle(shuffled)
    a, b = deltas[0], shuffled[0]
    for d in deltas[1:]:
        a = record.merge(a, d)
    for d in shuffled[1:]:
        b = record.merge(b, d)
    assert record.encode(a) == record.encode(b)
    everything = view(a, -1)
    assert everything.receipts == frozenset().union(*(r for r, _, _ in deliveries))
    assert everything.possession == frozenset().union(*(p for _, p, _ in deliveries))
    assert session_record.RECEIPTS in a.fields
