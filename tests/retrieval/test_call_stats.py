"""retrieval/call_stats: calls, tokens sent, tokens replaced (each file once), net saving."""

from repoctx.retrieval.call_stats import PENDING_MAX, CallStats
from repoctx.tokenizer import count_tokens


def test_note_and_as_json():
    stats = CallStats()
    assert stats.as_json() == {"calls": 0, "responseTokens": 0, "fullReadTokensReplaced": 0,
                               "netSaved": 0}
    stats.note(100, {"a.py": 400})
    stats.note(50, {})
    assert stats.as_json() == {"calls": 2, "responseTokens": 150,
                               "fullReadTokensReplaced": 400, "netSaved": 250}
    stats.note(500, {"a.py": 400})  # a file stood in for again is not saved twice
    assert stats.as_json()["netSaved"] == -250 and stats.full_read_tokens_replaced == 400


def test_an_answer_sent_as_text_is_counted_when_asked_for():
    stats = CallStats()
    stats.note('{"hits": []}', {})
    assert stats.pending and stats.response_tokens == 0  # not counted yet
    assert stats.as_json()["responseTokens"] == count_tokens('{"hits": []}')
    assert not stats.pending
    for _ in range(PENDING_MAX):  # a server keeps at most PENDING_MAX answers uncounted
        stats.note("word", {})
    assert not stats.pending and stats.response_tokens == count_tokens(
        '{"hits": []}') + PENDING_MAX * count_tokens("word")
