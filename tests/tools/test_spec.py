"""tools/spec: the schema helpers every tool's input schema is built from."""

import time

from repoctx.tools.spec import Tool, integer, over_bounds, schema, string, strings


def test_schema_accepts_repo_id_and_nothing_unknown():
    got = schema({"path": string("A path.")}, ("path",))
    assert got["type"] == "object" and got["additionalProperties"] is False
    assert got["required"] == ["path"] and list(got["properties"]) == ["repoId", "path"]
    assert got["properties"]["repoId"]["type"] == "string"
    assert "required" not in schema({}) and list(schema({})["properties"]) == ["repoId"]


def test_argument_helpers():
    assert string("d") == {"type": "string", "minLength": 1, "maxLength": 4096,
                           "description": "d"}
    assert string("d", 8)["maxLength"] == 8
    assert strings("d", 3) == {"type": "array", "items": {"type": "string", "maxLength": 1024},
                               "maxItems": 3, "description": "d"}
    assert integer("d", 1, 9, 4) == {"type": "integer", "minimum": 1, "maximum": 9,
                                     "default": 4, "description": "d"}


def test_tools_are_read_only_unless_said():
    tool = Tool("t", "does t", schema({}), lambda ws, a: {})
    assert tool.read_only is True
    assert Tool("w", "writes", schema({}), tool.handler, read_only=False).read_only is False


def test_behaviour_flags_default_to_a_harmless_idempotent_tool():
    tool = Tool("t", "does t", schema({}), lambda ws, a: {})
    assert (tool.title, tool.output_schema, tool.destructive, tool.idempotent) == (
        "", None, False, True)
    deleting = Tool("d", "deletes", schema({}), tool.handler, read_only=False,
                    destructive=True, idempotent=False, title="Delete",
                    output_schema={"type": "object"})
    assert deleting.destructive and not deleting.idempotent and deleting.title == "Delete"


def test_over_bounds_names_the_argument_and_its_bound_in_time_bounded_by_the_schema():
    spec = schema({"query": string("q", 10), "paths": strings("p", 50, 8)})
    assert over_bounds(spec, {"query": "short", "paths": ["a.py"] * 50}) is None
    assert over_bounds(spec, ["not", "a", "dict"]) is None
    assert over_bounds(spec, {"query": "x" * 11}) == (
        "query: must be a string of 1 to 10 characters (got 11)")
    assert over_bounds(spec, {"query": "ok", "paths": ["a", "b" * 9]}) == (
        "paths[1]: must be a string of 0 to 8 characters (got 9)")
    huge = {"paths": ["a"] * 2_000_000}  # built before the clock starts
    start = time.perf_counter()
    message = over_bounds(spec, huge)
    assert time.perf_counter() - start < 0.1  # O(schema): microseconds, not a 2M-item walk
    assert message == "paths: at most 50 entries (got 2000000)"


def test_the_published_schema_drops_only_what_validation_alone_needs():
    from repoctx.tools.spec import published_schema

    full = schema({"maxItems": strings("An argument named like a keyword.", 5),
                   "q": string("Words.", 10)}, ("q",))
    shown = published_schema(full)
    assert shown == {"type": "object", "required": ["q"], "properties": {
        "repoId": {"type": "string"},
        "maxItems": {"type": "array", "items": {"type": "string"},
                     "description": "An argument named like a keyword."},
        "q": {"type": "string", "description": "Words."}}}
    assert full["properties"]["q"]["maxLength"] == 10  # the checked schema keeps its bounds


def test_a_read_only_tool_writes_only_when_a_call_asks_for_bookkeeping():
    from repoctx.tools.registry import find_tool

    context, search = find_tool("repocontext_context"), find_tool("repocontext_search")
    assert context.read_only and search.read_only
    assert not context.writes({"task": "x"}) and context.writes({"task": "x", "session": "s"})
    assert not search.writes({"query": "x", "refresh": False})
    assert search.writes({"query": "x", "refresh": True})
    assert find_tool("repocontext_remember").writes({})
