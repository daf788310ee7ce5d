from __future__ import annotations

from pathlib import Path

import pytest

from repoctx.contextpull import Reader, call_tool, tool_definitions
from repoctx.errors import ToolError


def test_five_tools_with_descriptions_and_schemas() -> None:
    tools = tool_definitions()
    assert sorted(tools) == ["grep", "index", "neighbours", "read", "search"]
    for tool in tools.values():
        assert len(tool["description"]) > 40
        assert tool["inputSchema"]["type"] == "object"
    search = tools["search"]["inputSchema"]["properties"]
    assert (search["limit"]["minimum"], search["limit"]["maximum"], search["limit"]["default"]) \
        == (1, 50, 10)  # fmt: skip
    assert search["mode"]["enum"] == ["lexical", "hybrid"]
    assert search["in"]["items"]["type"] == "string"
    assert tools["grep"]["inputSchema"]["properties"]["pattern"]["maxLength"] == 200
    assert tools["grep"]["inputSchema"]["properties"]["limit"]["maximum"] == 100
    assert tools["read"]["inputSchema"]["properties"]["context"]["maximum"] == 5
    assert tools["neighbours"]["inputSchema"]["properties"]["before"]["default"] == 1


@pytest.fixture
def reader(corpus_store: Path) -> Reader:
    with Reader(corpus_store) as r:
        yield r


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("lookup", {}, "unknown tool 'lookup'; tools: grep, index, neighbours, read, search"),
        ("search", {}, "query: required"),
        ("search", {"query": 3}, "query: must be of type string"),
        ("search", {"query": "x", "limit": 0}, "limit: must be an integer from 1 to 50"),
        ("search", {"query": "x", "limit": True}, "limit: must be of type integer"),
        ("search", {"query": "x", "mode": "dense"}, "mode: must be one of lexical, hybrid"),
        ("search", {"query": "x", "in": "docs"}, "in: must be of type array"),
        ("search", {"query": "x", "in": [1]}, "in[0]: must be of type string"),
        ("search", {"query": "x", "extra": 1}, "extra: not an argument of search"),
        ("grep", {"pattern": "x" * 201}, "pattern: must be a string of 1 to 200 characters"),
        ("grep", {"pattern": "x", "regex": "yes"}, "regex: must be of type boolean"),
        ("read", {"id": "x", "context": -1}, "context: must be an integer from 0 to 5"),
        ("read", {"id": "nope#0"}, "id: unknown section id"),
    ],
)
def test_bad_arguments_name_the_argument(reader: Reader, name: str, arguments: dict,
                                         message: str) -> None:  # fmt: skip
    with pytest.raises(ToolError) as info:
        call_tool(reader, name, arguments)
    assert message in str(info.value)


def test_integers_past_their_maximum_are_refused_not_clamped(reader: Reader) -> None:
    with pytest.raises(ToolError, match=r"limit: must be an integer from 1 to 100 \(got 10000\)"):
        call_tool(reader, "grep", {"pattern": "e", "limit": 10_000})
    with pytest.raises(ToolError, match=r"context: must be an integer from 0 to 5 \(got 99\)"):
        call_tool(reader, "read", {"id": "errors.md#0", "context": 99})
    assert len(call_tool(reader, "grep", {"pattern": "e", "limit": 100})["matches"]) == 27


def test_integers_written_as_whole_floats_are_taken_as_integers(reader: Reader) -> None:
    # JSON Schema counts 2.0 and -0.0 as integers; a handler once met range(-0.0)
    as_int = call_tool(reader, "neighbours", {"id": "errors.md#1", "before": 0, "after": 1})
    as_float = call_tool(reader, "neighbours", {"id": "errors.md#1", "before": -0.0,
                                                "after": 1.0})
    assert as_float == as_int
    assert call_tool(reader, "search", {"query": "error", "limit": 2.0}) == call_tool(
        reader, "search", {"query": "error", "limit": 2})
    with pytest.raises(ToolError, match="limit"):
        call_tool(reader, "search", {"query": "error", "limit": 2.5})


@pytest.mark.parametrize("arguments", [None, [1, 2], "text", 3, True])
def test_arguments_that_are_not_an_object_are_refused(reader: Reader, arguments) -> None:
    with pytest.raises(ToolError, match="search: arguments must be a JSON object"):
        call_tool(reader, "search", arguments)


def test_defaults_and_dispatch(reader: Reader) -> None:
    assert call_tool(reader, "index", {})["text"] == reader.index()["text"]
    assert call_tool(reader, "neighbours", {"id": "errors.md#1"})["header"] is None
    result = call_tool(reader, "search", {"query": "refund", "in": ["policies"]})
    assert len(result["hits"]) == 10 and result["mode"] == "lexical"


def test_text_utf8_cannot_carry_is_refused_by_the_argument_check(reader: Reader) -> None:
    with pytest.raises(ToolError, match=r"pattern: not valid Unicode text \(a lone surrogate"):
        call_tool(reader, "grep", {"pattern": "a\ud800"})
    with pytest.raises(ToolError, match=r"in\[1\]: not valid Unicode text"):
        call_tool(reader, "search", {"query": "x", "in": ["ok", "\udc80"]})
