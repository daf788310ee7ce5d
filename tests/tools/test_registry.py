"""tools/registry: the one registry the three doors share."""

import json

import pytest

from repoctx.errors import ToolError
from repoctx.tools import registry as tools


def test_every_tool_has_a_description_and_an_object_schema():
    registry = tools.tools()
    assert set(tools.REPOCONTEXT_TOOLS) <= set(registry)
    assert len(registry) > len(tools.REPOCONTEXT_TOOLS)  # ContextPull's are served too
    for name, tool in registry.items():
        assert tool.name == name and len(tool.description) > 20, name
        assert tool.input_schema["type"] == "object", name
    for tool in tools.REPOCONTEXT_TOOLS.values():
        assert "repoId" in tool.input_schema["properties"]


def test_an_unknown_tool_suggests_the_nearest_names(shop):
    with pytest.raises(ToolError, match=r"unknown tool 'repocontext_serch'; did you mean "
                       r"repocontext_search\? `repoctx tools` lists them all"):
        tools.call(shop, "repocontext_serch", {})
    with pytest.raises(ToolError, match=r"unknown tool 'zzz'; `repoctx tools`"):
        tools.call(shop, "zzz", {})


@pytest.mark.parametrize("arguments", [[1, 2], "text", 3])
def test_arguments_that_are_not_an_object_are_a_tool_error(shop, arguments):
    with pytest.raises(ToolError, match="arguments must be a JSON object"):
        tools.call(shop, "repocontext_outline", arguments)


def test_no_arguments_is_an_empty_object(shop):
    assert tools.call(shop, "repocontext_health")["ok"] in (True, False)
    assert tools.call(shop, "repocontext_health", None) == tools.call(shop, "repocontext_health",
                                                                       {})


def test_path_arguments_are_normalised_before_the_handler(shop):
    plain = tools.call(shop, "repocontext_outline", {"path": "shop/cart.py"})
    for form in ("./shop/cart.py", "shop\\cart.py", str(shop.root / "shop" / "cart.py")):
        assert tools.call(shop, "repocontext_outline", {"path": form}) == plain
    with pytest.raises(ToolError, match="paths: '/etc' is outside the repository"):
        tools.call(shop, "repocontext_search", {"query": "cart", "paths": ["/etc"]})


def test_repo_id_must_match_the_served_store(shop):
    with pytest.raises(ToolError, match="repoId: this server serves 'shop', not 'other'"):
        tools.call(shop, "repocontext_outline", {"path": "shop/cart.py", "repoId": "other"})
    got = tools.call(shop, "repocontext_outline", {"path": "shop/cart.py", "repoId": "shop"})
    assert got["exists"]


def test_bad_arguments_name_the_argument(shop):
    with pytest.raises(ToolError, match="path"):
        tools.call(shop, "repocontext_outline", {})
    with pytest.raises(ToolError, match="bogus"):
        tools.call(shop, "repocontext_outline", {"path": "a", "bogus": 1})


def test_calls_are_counted_with_tokens_sent_and_replaced(fresh_shop):
    ws = fresh_shop
    tools.call(ws, "repocontext_outline", {"path": "shop/cart.py"})
    tools.call(ws, "repocontext_health", None)
    stats = tools.call(ws, "repocontext_stats", {})
    assert stats["calls"] == 2  # counted after it answers
    assert stats["fullReadTokensReplaced"] == ws.node("shop/cart.py").tokens
    assert stats["responseTokens"] > 0
    assert stats["netSaved"] == stats["fullReadTokensReplaced"] - stats["responseTokens"]
    assert ws.stats.calls == 3


def test_only_what_an_answer_stood_in_for_counts_as_not_read(fresh_shop):
    ws = fresh_shop
    tools.call(ws, "repocontext_search", {"query": "cart total"})
    assert ws.stats.full_read_tokens_replaced == 0  # hits name files the agent still reads
    bundle = tools.call(ws, "repocontext_context", {"task": "fix Cart.total",
                                                    "responseBudgetTokens": 200_000})
    partial = {e["path"] for e in bundle["entries"]
               if {u["kind"] for u in e["units"]} <= {"slice", "outline"}}
    assert ws.stats.full_read_tokens_replaced == sum(ws.node(p).tokens for p in partial)
    before = ws.stats.full_read_tokens_replaced
    tools.call(ws, "repocontext_outline", {"path": "shop/cart.py"})
    tools.call(ws, "repocontext_outline", {"path": "shop/cart.py"})
    twice = ws.node("shop/cart.py").tokens if "shop/cart.py" not in partial else 0
    assert ws.stats.full_read_tokens_replaced == before + twice  # once, however often


def test_serialize_is_compact_utf8_json():
    text = tools.serialize({"a": [1, 2], "b": "é"})
    assert text == '{"a":[1,2],"b":"é"}' and json.loads(text) == {"a": [1, 2], "b": "é"}
