"""Typo correction against the vocabulary."""

from repoctx.retrieval.search.fuzzy import (
    Vocabulary,
    correct_identifier,
    identifier_corrections,
    max_edits,
)

VOCAB = Vocabulary({"query": 40, "queue": 3, "price": 5, "total": 9, "savepoint": 2})


def test_a_typo_is_corrected_to_the_nearest_word():
    assert VOCAB.correct("qeury") == "query"
    assert VOCAB.correct("savepont") == "savepoint"


def test_ties_go_to_the_more_frequent_word():
    assert VOCAB.correct("queua") in {"queue", "query"}
    assert Vocabulary({"abcd": 1, "abce": 9}).correct("abcf") == "abce"


def test_known_short_and_far_words_are_left_alone():
    assert VOCAB.correct("query") is None
    assert VOCAB.correct("qu") is None
    assert VOCAB.correct("zzzzzz") is None
    assert VOCAB.correct("x_y") is None


def test_edit_budget_grows_with_length():
    assert max_edits("price") == 1 and max_edits("savepoint") == 2
    assert VOCAB.correct("prxxe") is None  # two edits on a five-letter word


def test_corrections_map_each_fixed_word():
    assert VOCAB.corrections(["Totl", "prise", "query"]) == {"totl": "total", "prise": "price"}


def test_an_identifier_is_corrected_part_by_part_keeping_its_style():
    parts = Vocabulary.of_names(["register_blueprint", "registerBlueprint", "HTTPResponse"])
    words = Vocabulary({"the": 9})
    assert correct_identifier("regster_bluprint", parts, words) == "register_blueprint"
    assert correct_identifier("regsterBluprint", parts, words) == "registerBlueprint"
    assert correct_identifier("HTTPRespnse", parts, words) == "HTTPResponse"
    assert correct_identifier("register_blueprint", parts, words) is None  # nothing unknown
    assert identifier_corrections(["regster_bluprint", "regster", "the"], parts, words) == {
        "regster_bluprint": "register_blueprint"}  # plain words are the word corrector's
