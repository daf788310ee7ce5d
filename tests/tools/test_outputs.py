"""tools/outputs: every tool's answer schema is a real JSON Schema that real
answers satisfy and wrong ones do not (the MCP test checks every tool over stdio)."""

import pytest
from jsonschema import Draft202012Validator, ValidationError

from repoctx.tools import outputs as tool_outputs
from repoctx.tools import registry as tools


def valid(schema, answer):
    Draft202012Validator(schema).validate(answer)


@pytest.mark.parametrize("name", sorted(tools.tools()))
def test_every_tool_has_a_title_and_a_checked_output_schema(name):
    tool = tools.tools()[name]
    assert tool.title and tool.title[0].isupper() and len(tool.title) < 50, name
    Draft202012Validator.check_schema(tool.output_schema)
    assert tool.output_schema["type"] == "object" and tool.output_schema["required"], name


def test_behaviour_flags_say_what_each_tool_does():
    registry = tools.tools()
    writers = {n for n, t in registry.items() if not t.read_only}
    assert writers == {"repocontext_remember", "repocontext_update", "repocontext_forget"}
    assert {n: t.writes_with for n, t in registry.items() if t.writes_with} == {
        "repocontext_search": ("refresh",), "repocontext_context": ("session",)}
    assert {n for n, t in registry.items() if t.destructive} == {
        "repocontext_remember", "repocontext_update", "repocontext_forget"}
    assert {n for n, t in registry.items() if not t.idempotent} == {"repocontext_remember"}


def test_real_answers_validate(shop):
    registry = tools.tools()
    for name, args in (("repocontext_outline", {"path": "shop/cart.py"}),
                       ("repocontext_outline", {"path": "no/such.py"}),
                       ("repocontext_search", {"query": "cart total"}),
                       ("repocontext_search", {"queries": ["cart", "price"]}),
                       ("repocontext_related", {"path": "shop/cart.py"}),
                       ("repocontext_health", {}), ("index", {}),
                       ("index", {"prefix": "shop/"})):
        valid(registry[name].output_schema, tools.call(shop, name, args))


def test_wrong_answers_do_not_validate():
    outline = {"path": "a.py", "exists": True, "fullReadTokenCount": 3, "digest": "d",
               "fresh": True, "symbols": []}
    valid(tool_outputs.OUTLINE, outline)
    for broken in ({**outline, "fullReadTokenCount": "3"}, {**outline, "symbols": [{}]},
                   {k: v for k, v in outline.items() if k != "exists"}):
        with pytest.raises(ValidationError):
            valid(tool_outputs.OUTLINE, broken)
    with pytest.raises(ValidationError, match="hits"):
        valid(tool_outputs.SEARCH, {"mode": "keyword", "retrievalPath": "keyword"})
    with pytest.raises(ValidationError):
        valid(tool_outputs.CONTEXTPULL["read"], {"id": "a#0"})


def test_helpers():
    assert tool_outputs.obj({"a": tool_outputs.STRING, "b": tool_outputs.INTEGER}, ("b",)) == {
        "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "required": ["a"]}
    assert tool_outputs.array(tool_outputs.STRING) == {"type": "array",
                                                        "items": {"type": "string"}}
    valid(tool_outputs.nullable(tool_outputs.STRING), None)
