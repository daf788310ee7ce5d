from repoctx.crdt.dots import CausalContext, compact, join, next_dot, of_dots


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
