"""Reciprocal-rank fusion."""

from repoctx.retrieval.fusion import RRF_K, fuse, ordered


def test_an_item_ranked_by_two_lists_beats_one_ranked_first_by_one():
    fused = fuse([("a", 1.0, ["x", "both"]), ("b", 1.0, ["y", "both"])])
    assert [f.key for f in ordered(fused)][0] == "both"
    assert fused["both"].sources == {"a": 2, "b": 2}
    assert fused["both"].score == 2 / (RRF_K + 2)


def test_weights_scale_a_lists_contribution():
    fused = fuse([("strong", 2.0, ["s"]), ("weak", 0.5, ["w"])])
    assert [f.key for f in ordered(fused)] == ["s", "w"]


def test_a_repeated_key_counts_once_at_its_best_rank():
    fused = fuse([("a", 1.0, ["x", "y", "x"])])
    assert fused["x"].sources == {"a": 1}
    assert fused["x"].score == 1 / (RRF_K + 1)


def test_ties_order_by_key_text():
    fused = fuse([("a", 1.0, ["b"]), ("c", 1.0, ["a"])])
    assert [f.key for f in ordered(fused)] == ["a", "b"]
