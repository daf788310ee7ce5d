"""retrieval/tools: the one registry the three doors share."""

import json

import pytest

from repoctx.errors import ToolError
from repoctx.retrieval import tools


def test_every_tool_has_a_description_and_an_object_schema():
    registry = tools.tools()
    assert set(tools.REPOCONTEXT_TOOLS) <= set(registry)
    assert len(registry) > len(tools.REPOCONTEXT_TOOLS)  # ContextPull's are served too
    for name, tool in registry.items():
        assert tool.name == name and len(tool.description) > 20, name
        assert tool.input_schema["type"] == "object", name
    for tool in tools.REPOCONTEXT_TOOLS.values():
        assert "repoId" in tool.input_schema["properties"]


def test_an_unknown_tool_lists_the_tools(shop):
    with pytest.raises(ToolError) as caught:
        tools.call(shop, "repocontext_nope", {})
    message = str(caught.value)
    assert message.startswith("unknown tool 'repocontext_nope'; tools: ")
    assert all(name in message for name in tools.tools())


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


def test_serialize_is_compact_utf8_json():
    text = tools.serialize({"a": [1, 2], "b": "é"})
    assert text == '{"a":[1,2],"b":"é"}' and json.loads(text) == {"a": [1, 2], "b": "é"}
