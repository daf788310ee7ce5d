"""The one serialization of responses and the self-counting seal."""

from __future__ import annotations

from repoctx.retrieval.wire import dumps, seal, tokens_of
from repoctx.tokenizer import count_tokens


def test_dumps_is_compact_and_keeps_unicode():
    assert dumps({"a": [1, "é"]}) == '{"a":[1,"é"]}'


def test_seal_makes_response_tokens_the_exact_count_of_the_text():
    for size in (0, 5, 300, 3000):
        response = {"entries": ["word " * size], "responseTokens": 0}
        text = seal(response)
        assert text == dumps(response)
        assert response["responseTokens"] == count_tokens(text) == tokens_of(response)


def test_seal_reaches_the_fixed_point_across_digit_boundaries():
    for n in range(990, 1010):
        response = {"x": "a " * n, "responseTokens": 0}
        text = seal(response)
        assert count_tokens(text) == response["responseTokens"]
