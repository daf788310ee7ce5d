from repoctx.contextpull.fts import match_queries, quote_fts


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
