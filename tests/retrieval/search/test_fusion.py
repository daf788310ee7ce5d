"""Reciprocal-rank fusion."""

from repoctx.retrieval.search.fusion import fuse, guarded, ordered
from repoctx.retrieval.tuning import TUNING

RRF_K = TUNING.fusion.rrf_k


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


def test_guarded_keeps_the_pinned_keyword_hits_on_top():
    fused = guarded(["exact", "k2", "k3"], ["s1", "s2", "exact"], pinned=1)
    assert fused[0] == "exact"
    assert guarded(["a", "b"], ["z", "b", "a"], pinned=2)[:2] == ["a", "b"]


def test_a_semantic_only_neighbour_does_not_displace_a_keyword_hit_of_its_rank():
    fused = guarded(["k1", "k2", "k3"], ["s1", "s2", "s3"], pinned=0, weight=0.5)
    assert fused == ["k1", "k2", "k3", "s1", "s2", "s3"]


def test_agreement_lifts_a_keyword_hit():
    fused = guarded(["k1", "k2", "k3", "k4"], ["k4", "s1"], pinned=0, weight=0.5, k=20)
    assert fused.index("k4") < 3 and fused.index("s1") > fused.index("k3")


def test_guarded_with_nothing_semantic_is_the_keyword_order():
    keys = ["a", "b", "c", "b"]
    assert guarded(keys, [], pinned=1) == ["a", "b", "c"]
    assert guarded([], ["x", "y"]) == ["x", "y"]
