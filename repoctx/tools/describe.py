"""tools/describe — one tool spelled out for a person or a script: ``repoctx tools NAME``.

What the tool list leaves out to stay cheap (``spec.published_schema``): the longer
guidance (``guides``), every argument with its type, default and limits, and the fields
of the answer.
"""

from __future__ import annotations

from typing import Any

from repoctx.tools.guides import GUIDES
from repoctx.tools.spec import Tool

_LIMITS = ("minimum", "maximum", "minLength", "maxLength", "maxItems")


def describe(tool: Tool) -> dict[str, Any]:
    """``{name, title, description, guide, readOnly, writesWith, arguments, answer}`` of
    ``tool`` (``writesWith``: the arguments under which a read-only tool writes bookkeeping)."""
    required = set(tool.input_schema.get("required", ()))
    arguments = [_argument(name, spec, name in required)
                 for name, spec in tool.input_schema.get("properties", {}).items()]
    return {"name": tool.name, "title": tool.title, "description": tool.description,
            "guide": GUIDES.get(tool.name, tool.description), "readOnly": tool.read_only,
            "writesWith": list(tool.writes_with),
            "arguments": arguments, "answer": _fields(tool.output_schema or {})}


def _argument(name: str, spec: dict[str, Any], required: bool) -> dict[str, Any]:
    """One argument: its name, type, whether it is required, and what else the schema says."""
    out: dict[str, Any] = {"name": name, "type": _type(spec), "required": required}
    for key in ("default", "enum", *_LIMITS, "description"):
        if key in spec:
            out[key] = spec[key]
    items = spec.get("items", {})
    for key, name_as in (("enum", "itemEnum"), ("maxLength", "itemMaxLength")):
        if key in items:
            out[name_as] = items[key]
    return out


def _fields(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The answer's top-level fields, each with its type (and an array's item fields)."""
    optional = set(schema.get("properties", {})) - set(schema.get("required", ()))
    out = []
    for name, spec in schema.get("properties", {}).items():
        field: dict[str, Any] = {"name": name, "type": _type(spec), "always": name not in optional}
        items = spec.get("items", {})
        if "properties" in items:
            field["itemFields"] = list(items["properties"])
        out.append(field)
    return out


def _type(spec: dict[str, Any]) -> str:
    """A schema's type in a word or two (``array of string``, ``string or null``)."""
    kind = spec.get("type", "any")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        return f"array of {_type(spec.get('items', {}))}"
    if "anyOf" in spec:
        return " or ".join(_type(option) for option in spec["anyOf"])
    return kind
