"""The one serialization of responses, counting by parts, and the self-counting seal."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from repoctx.retrieval.bundle.wire import counted, dumps, seal, tokens_of
from repoctx.tokenizer import count_tokens

# Text that stresses the pre-tokenizer at the edges of a part: words, digit runs,
# spaces and line ends (escaped in JSON), quotes, backslashes, contractions, non-ASCII
# letters and digits, and characters JSON leaves as they are.
PIECES = ["def ", "x", "Ab", "7", "123456", " ", "  ", "\n", "\n    ", "\t", '"', "\\", "'s",
          "'ll", "(", ")", ":", ".", "_", "-", "é", "²", "٣", "→", "😀", "\u2028", "\r\n"]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
hexes = st.text("0123456789abcdef", min_size=1, max_size=64)


def unit(text: str, receipt: str) -> dict:
    return {"kind": "slice", "symbol": "m.f", "lines": [3, 9], "text": text, "receipt": receipt}


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


@settings(max_examples=300)
@given(texts, hexes)
def test_a_unit_is_counted_exactly_alone_and_in_its_stand_ins_place(text, receipt):
    body = unit(text, receipt)
    part = counted(body)
    assert part.tokens == tokens_of(body)
    assert part.stand == {"h": "h"}
    around = [{"path": "a.py"}, 5, "x"]
    holding = {"entries": [*around, body, {"units": [body]}], "n": 1}
    standing = {"entries": [*around, part.stand, {"units": [part.stand]}], "n": 1}
    assert tokens_of(standing) + 2 * part.added == tokens_of(holding)


@settings(max_examples=300)
@given(st.lists(st.tuples(texts, hexes), min_size=1, max_size=4), texts)
def test_an_entry_of_units_stands_in_for_itself_in_a_response(units, reason):
    bodies = [unit(text, receipt) for text, receipt in units]
    head = {"path": "pkg/m.py", "contentHash": "ab12" * 16, "reasons": [reason]}
    holed = counted({**head, "units": [counted(b).stand for b in bodies]})
    added = holed.added + sum(counted(b).added for b in bodies)
    assert holed.tokens + sum(counted(b).added for b in bodies) == tokens_of(
        {**head, "units": bodies})
    response = {"entries": [{**head, "units": bodies}], "reused": [], "responseTokens": 0}
    shell = {**response, "entries": [holed.stand]}
    text = seal(response, shell, added)
    assert text == dumps(response) and response["responseTokens"] == count_tokens(text)


def test_dicts_whose_edges_are_not_cuts_stand_for_themselves():
    for obj in ({"a": "ends with a dot."}, {"a": 'ends "quoted"'}, {"_a": "x"}, {"a": "é"},
                {"a": "space "}):
        part = counted(obj)
        assert part == (obj, 0, tokens_of(obj))


def test_numbers_and_nested_closings_get_stand_ins_of_the_same_edges():
    def closing(text):
        return text[len(text.rstrip('"]}')):]

    for obj in ({"a": 12}, {"a": [1, 2]}, {"a": {"b": "c"}}, {"a": [{"b": "c"}]}):
        part = counted(obj)
        assert part.stand != obj and closing(dumps(part.stand)) == closing(dumps(obj))
        assert tokens_of({"x": [obj]}) == tokens_of({"x": [part.stand]}) + part.added
