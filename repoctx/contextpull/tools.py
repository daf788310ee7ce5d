"""`contextpull/tools` — the reader's tools as declared in ``tools.json``, and a dispatcher.

:func:`call_tool` validates arguments against the JSON schemas of ``tools.json`` (types,
enums, lengths, ranges; defaults filled in) and calls the :class:`Reader`, so the CLI
and the MCP server share one argument check. Integers above their maximum are clamped to
it; every other violation is a :class:`~repoctx.errors.ToolError` naming the argument
and the values it accepts.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from repoctx.contextpull.reader import Reader
from repoctx.errors import ToolError

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


@lru_cache(maxsize=1)
def tool_definitions() -> dict[str, dict[str, Any]]:
    """The tools of ``tools.json`` by name: ``name``, ``description``, ``inputSchema``."""
    text = resources.files("repoctx.contextpull").joinpath("tools.json").read_text("utf-8")
    return {tool["name"]: tool for tool in json.loads(text)["tools"]}


def _type_ok(value: Any, expected: str) -> bool:
    if expected in ("integer", "string", "array") and isinstance(value, bool):
        return False
    return isinstance(value, _JSON_TYPES[expected])


def _check_length(name: str, value: str, schema: dict[str, Any]) -> None:
    low, high = schema.get("minLength", 0), schema.get("maxLength")
    if len(value) < low or (high is not None and len(value) > high):
        bound = f"{low} to {high}" if high is not None else f"at least {low}"
        raise ToolError(f"{name}: must be a string of {bound} characters")


def _check_number(name: str, value: int, schema: dict[str, Any]) -> int:
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and value < low:
        raise ToolError(f"{name}: must be an integer from {low} to {high} (got {value})")
    return min(value, high) if high is not None else value


def check_value(name: str, value: Any, schema: dict[str, Any]) -> Any:
    """Validate one argument against its schema; returns it (clamped if an integer)."""
    expected = schema["type"]
    if not _type_ok(value, expected):
        raise ToolError(f"{name}: must be of type {expected} (got {type(value).__name__})")
    if "enum" in schema and value not in schema["enum"]:
        raise ToolError(f"{name}: must be one of {', '.join(schema['enum'])} (got {value!r})")
    if expected == "string":
        _check_length(name, value, schema)
    elif expected == "integer":
        return _check_number(name, value, schema)
    elif expected == "array":
        if len(value) > schema.get("maxItems", len(value)):
            raise ToolError(f"{name}: at most {schema['maxItems']} entries")
        return [check_value(f"{name}[{i}]", item, schema["items"]) for i, item in enumerate(value)]
    return value


def validate_arguments(name: str, arguments: Any) -> dict[str, Any]:
    """Checked arguments of tool ``name`` with defaults filled in."""
    tools = tool_definitions()
    if name not in tools:
        raise ToolError(f"unknown tool {name!r}; tools: {', '.join(sorted(tools))}")
    return check_arguments(name, tools[name]["inputSchema"], arguments)


def check_arguments(name: str, schema: dict[str, Any], arguments: Any) -> dict[str, Any]:
    """Arguments of the tool ``name`` checked against its input ``schema``, defaults filled."""
    if not isinstance(arguments, dict):
        raise ToolError(f"{name}: arguments must be a JSON object")
    properties: dict[str, dict[str, Any]] = schema["properties"]
    for key in arguments:
        if key not in properties:
            valid = ", ".join(properties) or "none"
            raise ToolError(f"{key}: not an argument of {name} (arguments: {valid})")
    for key in schema.get("required", []):
        if key not in arguments:
            raise ToolError(f"{key}: required by {name}")
    checked = {k: v["default"] for k, v in properties.items() if "default" in v}
    for key, value in arguments.items():
        checked[key] = check_value(key, value, properties[key])
    return checked


def call_tool(reader: Reader, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Validate ``arguments`` for tool ``name`` and run it on ``reader``."""
    args = validate_arguments(name, arguments)
    if name == "search":
        return reader.search(args["query"], args.get("in"), args["limit"], args["mode"])
    if name == "read":
        return reader.read(args["id"], args["context"])
    if name == "grep":
        return reader.grep(args["pattern"], args.get("in"), args["regex"], args["limit"])
    if name == "neighbours":
        return reader.neighbours(args["id"], args["before"], args["after"])
    return reader.index(args.get("prefix"))
