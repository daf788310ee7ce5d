from repoctx.contextpull.read.fts import (
    MAX_QUERY_TERMS,
    MAX_RANKED_TERMS,
    match_queries,
    quote_fts,
    reduce_terms,
)


def test_quote_doubles_inner_quotes() -> None:
    assert quote_fts('say "hi"') == '"say ""hi"""'


def test_single_token_has_only_or_pass() -> None:
    queries = match_queries("TX-4419")
    assert queries is not None
    assert queries.passes() == ['"tx-4419"']


def test_multi_token_passes_in_order() -> None:
    queries = match_queries("refund window")
    assert queries is not None
    assert queries.passes() == ['"refund window"', '"refund" AND "window"', '"refund" OR "window"']


def test_operators_become_plain_tokens() -> None:
    queries = match_queries('a NEAR b OR "c')
    assert queries is not None
    assert queries.any_term == '"a" OR "near" OR "b" OR "or" OR "c"'


def test_no_words_gives_none() -> None:
    assert match_queries('"*:') is None


def test_a_long_query_is_reduced_to_its_best_distinct_terms_in_query_order() -> None:
    words = [f"w{i}" for i in range(MAX_QUERY_TERMS + 8)]
    query = " ".join(words + words)  # repeats count once
    by_rank = match_queries(query, lambda terms: sorted(terms, key=lambda t: -int(t[1:])))
    assert by_rank is not None and by_rank.reduced
    assert by_rank.tokens == tuple(words[8:])  # the best by rank, kept in query order
    assert by_rank.phrase is None  # a phrase of picked words is no phrase
    assert by_rank.passes() == [" AND ".join(f'"{w}"' for w in words[8:]),
                                " OR ".join(f'"{w}"' for w in words[8:])]
    first = match_queries(query)
    assert first is not None and first.tokens == tuple(words[:MAX_QUERY_TERMS])


def test_a_query_within_the_bound_is_searched_whole() -> None:
    query = " ".join(["same"] * MAX_QUERY_TERMS)
    queries = match_queries(query, lambda terms: [])
    assert queries is not None and not queries.reduced
    assert queries.phrase == quote_fts(query)


def test_reduce_terms_ranks_only_the_first_distinct_tokens() -> None:
    tokens = [f"t{i}" for i in range(MAX_RANKED_TERMS * 4)]
    ranked: list[int] = []
    reduce_terms(tokens, lambda terms: ranked.append(len(terms)) or list(terms))
    assert ranked == [MAX_RANKED_TERMS]
