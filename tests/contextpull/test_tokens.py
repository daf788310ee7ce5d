import re

from hypothesis import given
from hypothesis import strategies as st

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


def _reference(text: str) -> str:
    """The rule spelled per token (slow): strip edge runs from every ``[\\w.-]+`` token."""
    return re.sub(r"[\w.\-]+", lambda m: m.group(0).strip("-_."), text)


@given(st.text(alphabet=st.sampled_from("aZ9é\u0301²ß٣中_-. \n'!\ud800"), max_size=30))
def test_normalise_equals_the_per_token_rule(text: str) -> None:
    assert normalise_fts_text(text) == _reference(text)


def test_normalise_equals_the_rule_beside_every_character() -> None:
    for code in range(0x3000):
        c = chr(code)
        for text in (f"a-{c}", f"{c}-a", f"{c}.{c}", f"{c}__", f"x{c}_-{c}y"):
            assert normalise_fts_text(text) == _reference(text), repr(text)
