"""retrieval/call_stats: calls, tokens sent, tokens replaced, net saving."""

from repoctx.retrieval.call_stats import CallStats


def test_note_and_as_json():
    stats = CallStats()
    assert stats.as_json() == {"calls": 0, "responseTokens": 0, "fullReadTokensReplaced": 0,
                               "netSaved": 0}
    stats.note(100, 400)
    stats.note(50, 0)
    assert stats.as_json() == {"calls": 2, "responseTokens": 150,
                               "fullReadTokensReplaced": 400, "netSaved": 250}
    stats.note(500, 0)
    assert stats.as_json()["netSaved"] == -250
