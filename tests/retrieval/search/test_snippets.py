"""Snippets are bounded windows around matches, not prefixes."""

from repoctx.retrieval.search.snippets import (
    ELLIPSIS,
    SNIPPET_CHARS,
    best_window,
    match_positions,
    snippet,
    term_pattern,
)

FILLER = "lorem ipsum dolor sit amet " * 40


def test_the_window_sits_around_the_match_far_into_the_text():
    text = FILLER + "the refund window is thirty days" + " " + FILLER
    out = snippet(text, ["refund", "window"])
    assert "refund window" in out
    assert out.startswith(ELLIPSIS) and out.endswith(ELLIPSIS)
    assert len(out) <= SNIPPET_CHARS + 2


def test_the_window_with_most_distinct_words_wins():
    text = "alpha " + FILLER + " alpha beta gamma together " + FILLER
    out = snippet(text, ["alpha", "beta", "gamma"])
    assert "alpha beta gamma" in out


def test_words_match_inside_identifiers_and_by_stem():
    positions = match_positions("class HttpResponse: savepoints", term_pattern(["response",
                                                                              "savepoint"]))
    assert [w for _, w in positions] == ["response", "savepoint"]


def test_short_words_match_only_at_word_starts():
    assert match_positions("items item", term_pattern(["tem"])) == []
    assert [o for o, _ in match_positions("tem a_tem -tem", term_pattern(["tem"]))] == [0, 11]


def test_longer_forms_are_tried_first_a_word_start_counting_as_two_letters_each_a_letter_first():
    pattern = term_pattern(["url", "urls", "urlconf"])
    assert [w for _, w in match_positions("urlconf urls url", pattern)] == ["urlconf", "url",
                                                                               "url"]
    assert all(alt[0].isalpha() for alt in pattern.pattern.split("|"))


def test_no_match_falls_back_to_the_start_and_whitespace_is_collapsed():
    out = snippet("first   line\n\n   second line " + FILLER, ["absent"])
    assert out.startswith("first line second line")
    assert len(out) <= SNIPPET_CHARS + 2


def test_short_texts_come_back_whole():
    assert snippet("a short text", ["short"]) == "a short text"


def test_best_window_none_without_positions():
    assert best_window([], 100) is None
