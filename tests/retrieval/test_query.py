"""Identifier-aware tokenisation and the one sanitising gate for queries."""

import pytest

from repoctx.errors import ToolError
from repoctx.retrieval.query import (
    MAX_QUERY_CHARS,
    MAX_QUERY_TERMS,
    expand_for_index,
    fts_or,
    is_compound,
    light_stem,
    normalise_name,
    replace_words,
    sanitise_query,
    split_identifier,
)


@pytest.mark.parametrize(("token", "parts"), [
    ("snake_case", ["snake", "case"]),
    ("camelCase", ["camel", "case"]),
    ("HTTPResponse", ["http", "response"]),
    ("getHTTPResponse_code", ["get", "http", "response", "code"]),
    ("__init__", ["init"]),
    ("base64", ["base", "64"]),
    ("model", ["model"]),
])
def test_split_identifier_follows_how_code_is_written(token, parts):
    assert split_identifier(token) == parts


def test_is_compound_only_for_multi_part_identifiers():
    assert is_compound("select_related") and is_compound("camelCase") and is_compound("HTTPResp")
    assert not is_compound("model") and not is_compound("Model") and not is_compound("HTTP")


def test_expand_for_index_keeps_the_original_and_adds_parts_in_place():
    text = "x = self.model.select_related(); HTTPResponse(camelCase) plain"
    out = expand_for_index(text)
    assert "select_related select related" in out
    assert "HTTPResponse http response" in out
    assert "camelCase camel case" in out
    assert out.startswith("x = self.model.")  # dotted names are split by the tokenizer itself
    assert out.endswith("plain")


def test_expand_for_index_leaves_plain_words_alone():
    assert expand_for_index("just some words") == "just some words"


def test_light_stem_folds_plurals_and_verb_forms_both_ways():
    assert light_stem("savepoints") == light_stem("savepoint") == "savepoint"
    assert light_stem("queries") == "query"
    assert light_stem("prefetching") == "prefetch"
    assert light_stem("class") == "class"  # -ss stays
    assert light_stem("is") == "is"


def test_normalise_name_folds_case_and_underscores():
    assert normalise_name("select_related") == normalise_name("SelectRelated") == "selectrelated"


def test_sanitise_query_strips_fts_syntax_and_stopwords():
    terms = sanitise_query('"where" NEAR(model* OR  col:umn) ^start -x (select_related)')
    assert terms.words[0] == "near"  # a word now, never an operator
    assert "model" in terms.words and "select_related" in terms.words
    assert "select" in terms.words and "related" in terms.words
    assert "where" not in terms.words  # stopword
    assert all('"' not in w and "*" not in w and ":" not in w for w in terms.words)
    assert terms.identifiers == ("select_related",)


def test_sanitise_query_joins_neighbouring_words_for_symbol_names():
    terms = sanitise_query("how does prefetch related objects work")
    assert "prefetchrelated" in terms.joins and "prefetchrelatedobjects" in terms.joins


@pytest.mark.parametrize("query", ['"', "*", "()", ":", "   ", "the of and"])
def test_queries_without_words_are_empty_not_errors(query):
    assert sanitise_query(query).empty


def test_sanitise_query_bounds_length_and_terms():
    with pytest.raises(ToolError, match="query: at most 1000 characters"):
        sanitise_query("a" * (MAX_QUERY_CHARS + 1))
    with pytest.raises(ToolError, match="at most 32 words"):
        sanitise_query(" ".join(["word"] * (MAX_QUERY_TERMS + 1)))
    with pytest.raises(ToolError, match="queries\\[2\\]: must be a string"):
        sanitise_query(7, "queries[2]")


def test_fts_or_quotes_every_term():
    assert fts_or(["a", 'b"c']) == '"a" OR "b""c"'
    assert fts_or([]) is None


def test_replace_words_swaps_corrected_words():
    terms = replace_words(sanitise_query("totl prise"), {"totl": "total", "prise": "price"})
    assert terms.words == ("total", "price")


def test_a_query_that_is_one_name_keeps_it_as_typed():
    assert sanitise_query("Blueprint.register").name == "Blueprint.register"
    assert sanitise_query("  _trigsimp ").name == "_trigsimp"
    assert sanitise_query("how to register").name is None
    fixed = replace_words(sanitise_query("Blueprint.regster"), {"regster": "register"})
    assert fixed.name == "Blueprint.register"
