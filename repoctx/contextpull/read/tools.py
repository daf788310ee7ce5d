"""`contextpull/read/tools` — the reader's tools as declared in ``tools.json``, and a dispatcher.

:func:`call_tool` validates arguments against the JSON schemas of ``tools.json`` with a JSON
Schema validator (types, enums, lengths, ranges; defaults filled in) and calls the
:class:`Reader`, so the CLI and the MCP server share one argument check. A violation is
a :class:`~repoctx.errors.ToolError` naming the argument and the values it accepts.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from repoctx.contextpull.read.reader import Reader
from repoctx.errors import ToolError


@lru_cache(maxsize=1)
def tool_definitions() -> dict[str, dict[str, Any]]:
    """The tools of ``tools.json`` by name: ``name``, ``description``, ``inputSchema``."""
    text = resources.files("repoctx.contextpull.read").joinpath("tools.json").read_text("utf-8")
    return {tool["name"]: tool for tool in json.loads(text)["tools"]}


def validate_arguments(name: str, arguments: Any) -> dict[str, Any]:
    """Checked arguments of tool ``name`` with defaults filled in."""
    tools = tool_definitions()
    if name not in tools:
        raise ToolError(f"unknown tool {name!r}; tools: {', '.join(sorted(tools))}")
    return check_arguments(name, tools[name]["inputSchema"], arguments)


def check_arguments(name: str, schema: dict[str, Any], arguments: Any) -> dict[str, Any]:
    """Arguments of the tool ``name`` checked against its input ``schema``, defaults filled.

    The schema is the one the tool publishes, enforced whole by a JSON Schema validator
    (types, enums, lengths, ranges, unknown and missing fields) after the text is checked
    to be Unicode that UTF-8 can carry; the first violation is a ``ToolError`` naming the
    field and what it accepts.
    """
    if not isinstance(arguments, dict):
        raise ToolError(f"{name}: arguments must be a JSON object (got {_json_type(arguments)})")
    _check_unicode(arguments)
    error = _first_error(schema, arguments)
    if error is not None:
        raise ToolError(_message(name, schema, error))
    defaults = {k: v["default"] for k, v in schema["properties"].items() if "default" in v}
    return defaults | {k: _as_declared(schema["properties"].get(k, {}), v)
                       for k, v in arguments.items()}


def _as_declared(schema: dict[str, Any], value: Any) -> Any:
    """An integer JSON Schema accepts as a number (``2.0``, ``-0.0``) as a Python int, so
    the handlers never meet a float where they count (``range``, slices)."""
    if schema.get("type") == "integer" and isinstance(value, float):
        return int(value)
    if schema.get("type") == "array" and isinstance(value, list) and "items" in schema:
        return [_as_declared(schema["items"], item) for item in value]
    return value


def _check_unicode(value: Any, where: str = "arguments") -> None:
    """Refuse text no UTF-8 can carry (a lone surrogate, as JSON's ``\\ud800`` gives)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ToolError(f"{where}: not valid Unicode text (a lone surrogate at "
                            f"character {exc.start}); send UTF-8 text") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_unicode(key, where)
            _check_unicode(item, key if isinstance(key, str) else where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_unicode(item, f"{where}[{i}]")


def _first_error(schema: dict[str, Any], arguments: dict[str, Any]) -> Any:
    from jsonschema import Draft202012Validator  # a slow import: paid at the first call only

    errors = Draft202012Validator(schema).iter_errors(arguments)
    return min(errors, key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))),
               default=None)


def _message(name: str, schema: dict[str, Any], error: Any) -> str:
    """One line: the field at fault and what it accepts, in the tool's own words."""
    field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    field = field.lstrip(".") or name
    rule, spec, value = error.validator, error.schema, error.instance
    if rule == "additionalProperties":
        extra = sorted(set(value) - set(spec.get("properties", {})))
        return (f"{', '.join(extra)}: not an argument of {name} (arguments: "
                f"{', '.join(schema['properties']) or 'none'})")
    if rule == "required":
        missing = [k for k in error.validator_value if k not in value]
        return f"{', '.join(missing)}: required by {name}"
    if rule == "type":
        return f"{field}: must be of type {spec['type']} (got {_json_type(value)})"
    if rule == "enum":
        return f"{field}: must be one of {', '.join(map(str, spec['enum']))} (got {value!r})"
    if rule in ("minLength", "maxLength"):
        low, high = spec.get("minLength", 0), spec.get("maxLength")
        bound = f"{low} to {high}" if high is not None else f"at least {low}"
        return f"{field}: must be a string of {bound} characters (got {len(value)})"
    if rule in ("minimum", "maximum"):
        return (f"{field}: must be an integer from {spec.get('minimum', '-inf')} to "
                f"{spec.get('maximum', 'inf')} (got {value})")
    if rule == "maxItems":
        return f"{field}: at most {spec['maxItems']} entries (got {len(value)})"
    return f"{field}: {error.message}"


def _json_type(value: Any) -> str:
    names = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
             dict: "object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


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
