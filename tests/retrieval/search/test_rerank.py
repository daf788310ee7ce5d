"""Proximity and heading signals."""

from repoctx.retrieval.search.rerank import RerankSignals, ordered_pairs, signals, smallest_span
from repoctx.retrieval.search.snippets import match_positions, term_pattern

QUERY = ["session", "continuity"]
PATTERN = term_pattern(QUERY)


def _signals(text, heading=""):
    return signals(match_positions(text, PATTERN), heading, QUERY, PATTERN)


def test_terms_close_together_score_higher_than_terms_far_apart():
    near = _signals("session continuity is kept")
    far = _signals("session " + "x " * 400 + "continuity")
    assert near.proximity > far.proximity
    assert near.factor() > far.factor()


def test_ordered_adjacent_pairs_are_counted():
    assert _signals("session continuity").pairs == 1
    assert _signals("continuity session").pairs == 0


def test_heading_hits_and_coverage():
    got = _signals("only session here", heading="Guide > Continuity")
    assert got.coverage == 0.5 and got.heading == 0.5


def test_nothing_matched_leaves_the_score_alone():
    assert _signals("unrelated text") == RerankSignals(0.0, 0.0, 0, 0.0)
    assert RerankSignals(0.0, 0.0, 0, 0.0).factor() == 1.0


def test_smallest_span_and_pairs_helpers():
    positions = [(0, "a"), (50, "b"), (60, "a")]
    assert smallest_span(positions, {"a", "b"}) == 11
    assert ordered_pairs([(0, "a"), (5, "b")], ["a", "b"]) == 1
