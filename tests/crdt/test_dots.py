from hypothesis import given, settings
from hypothesis import strategies as st

from repoctx.crdt.dots import (
    CausalContext,
    compact,
    decode_context,
    disjoint,
    encode_context,
    join,
    join_encoded,
    next_dot,
    of_dots,
)


def test_compaction_folds_contiguous_dots_into_the_vector():
    ctx = of_dots({("a", 1), ("a", 2), ("a", 4), ("b", 1)})
    assert ctx == CausalContext({"a": 2, "b": 1}, frozenset({("a", 4)}))
    assert join(ctx, of_dots({("a", 3)})) == CausalContext({"a": 4, "b": 1})


def test_compaction_closes_gaps_in_any_order():
    assert compact({"a": 1}, [("a", 3), ("a", 2), ("a", 5)]) == CausalContext(
        {"a": 3}, frozenset({("a", 5)}))


def test_next_dot_is_past_everything_observed():
    ctx = CausalContext({"a": 2}, frozenset({("a", 7)}))
    assert next_dot(ctx, "a") == ("a", 8) and next_dot(ctx, "b") == ("b", 1)
    assert ("a", 2) in ctx and ("a", 7) in ctx and ("a", 3) not in ctx


# Wire contexts as stored: a vector (zero counters too: ``decode_context`` accepts them)
# and a cloud, compacted or not, so both the fast shape and the general one are drawn.
replicas = st.sampled_from(["r1", "r2", "r3"])
wire_contexts = st.tuples(
    st.dictionaries(replicas, st.integers(0, 4), max_size=3).map(
        lambda vv: tuple(sorted(vv.items()))),
    st.sets(st.tuples(replicas, st.integers(1, 7)), max_size=3).map(lambda c: tuple(sorted(c))),
)


@settings(max_examples=500, deadline=None)
@given(wire_contexts, wire_contexts)
def test_join_encoded_is_the_encoded_join_of_disjoint_contexts(a, b):
    ctx_a, ctx_b = decode_context(a), decode_context(b)
    expected = encode_context(join(ctx_a, ctx_b)) if disjoint(ctx_a, ctx_b) else None
    assert join_encoded(a, b) == expected


def test_join_encoded_folds_an_add_past_the_vector_and_refuses_a_seen_dot():
    assert join_encoded(((("r1", 20),), ()), ((), (("r1", 21),))) == ((("r1", 21),), ())
    assert join_encoded(((("r1", 20),), ()), ((), (("r1", 23),))) == (
        (("r1", 20),), (("r1", 23),))
    assert join_encoded(((("r1", 20),), ()), ((), (("r1", 20),))) is None
