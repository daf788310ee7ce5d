from repoctx.contextpull.tokens import ascii_lower, normalise_fts_text, query_tokens


def test_normalise_strips_edge_runs_only() -> None:
    text = "Use --no-cache. Then cache. _private_ ... tx-4419 3.12 tool.uv.sources"
    assert (
        normalise_fts_text(text) == "Use no-cache Then cache private  tx-4419 3.12 tool.uv.sources"
    )


def test_normalise_keeps_inner_punctuation_and_unicode() -> None:
    assert normalise_fts_text("café-- __init__ a.b.c.") == "café init a.b.c"


def test_query_tokens_follow_contract_regex() -> None:
    assert query_tokens("  --No-Cache flag!") == ["no-cache", "flag"]
    assert query_tokens("TX-4419, 3.12 tool.uv.sources.") == ["tx-4419", "3.12", "tool.uv.sources"]
    assert query_tokens('NEAR("a" b*) c:d') == ["near", "a", "b", "c", "d"]


def test_query_tokens_empty_for_punctuation() -> None:
    assert query_tokens('" * : -- ... __') == []


def test_ascii_lower_folds_ascii_only_like_sqlite() -> None:
    assert ascii_lower("CAFÉ Straße ÄB") == "cafÉ straße Äb"
