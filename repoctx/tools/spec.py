"""tools/spec — what a tool is: name, title, description, the JSON schemas of
its arguments and its answer, what it may do to the store, and its handler.

Each module that offers tools exports ``TOOLS: tuple[Tool, ...]``; ``tools.py`` gathers
them into the one registry the three doors share. The MCP server publishes ``title``,
both schemas and the behaviour flags as the tool's annotations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from repoctx.retrieval.workspace import Workspace

Handler = Callable[["Workspace", dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool: what it is called, what it does, what it takes and answers, what runs it.

    ``read_only``: changes nothing in the store, unless a call gives one of the
    ``writes_with`` arguments, which only refresh derived bookkeeping (a session's
    delivery receipts, a re-index of stale files), never what a user wrote. So the two
    tools agents call most are auto-approvable as read-only, and say truthfully when they
    write. ``destructive``: may overwrite or delete what is there (not only add).
    ``idempotent``: repeating a call with the same arguments changes nothing further and
    answers the same. A read-only tool is neither destructive nor anything but idempotent.
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Handler
    read_only: bool = True
    title: str = ""
    output_schema: dict[str, Any] | None = None
    destructive: bool = False
    idempotent: bool = True
    writes_with: tuple[str, ...] = ()

    def writes(self, arguments: dict[str, Any]) -> bool:
        """True when a call with ``arguments`` may write the store."""
        return not self.read_only or any(arguments.get(name) for name in self.writes_with)


def schema(properties: dict[str, dict[str, Any]], required: tuple[str, ...] = ()) -> dict:
    """A JSON object schema; every tool accepts ``repoId`` (default: the store's only
    repository; its name says what it is, and the tool list is paid for on every turn)."""
    props = {"repoId": {"type": "string", "maxLength": 128}, **properties}
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    return {**out, "required": list(required)} if required else out


def string(description: str = "", max_length: int = 4096) -> dict[str, Any]:
    """A bounded, non-empty string argument (a name that says it all needs no description)."""
    return _described({"type": "string", "minLength": 1, "maxLength": max_length}, description)


def strings(description: str = "", max_items: int = 100, max_length: int = 1024,
            ) -> dict[str, Any]:
    """A bounded list of strings."""
    return _described({"type": "array", "items": {"type": "string", "maxLength": max_length},
                       "maxItems": max_items}, description)


def integer(description: str, low: int, high: int, default: int | None = None) -> dict[str, Any]:
    """An integer with a range (clamped) and a default (none: the handler decides)."""
    out: dict[str, Any] = {"type": "integer", "minimum": low, "maximum": high}
    if default is not None:
        out["default"] = default
    return _described(out, description)


def _described(spec: dict[str, Any], description: str) -> dict[str, Any]:
    """``spec`` with its description, when there is one."""
    return {**spec, "description": description} if description else spec


def over_bounds(input_schema: dict[str, Any], arguments: Any) -> str | None:
    """What in ``arguments`` passes the size bounds of ``input_schema`` (an array longer
    than its ``maxItems``, a string longer than its ``maxLength``, an item of a bounded
    array longer than the items' ``maxLength``), in the schema check's own words; None
    if nothing does. Checked before any other work on the arguments, in time bounded by
    the schema, not by the arguments' size."""
    if not isinstance(arguments, dict):
        return None
    for key, spec in input_schema.get("properties", {}).items():
        value = arguments.get(key)
        if isinstance(value, str) and (error := _too_long(key, spec, value)):
            return error
        if isinstance(value, list):
            most = spec.get("maxItems")
            if most is None:
                continue
            if len(value) > most:
                return f"{key}: at most {most} entries (got {len(value)})"
            for i, item in enumerate(value):
                if isinstance(item, str) and (error := _too_long(f"{key}[{i}]", spec.get(
                        "items", {}), item)):
                    return error
    return None


def _too_long(field: str, spec: dict[str, Any], value: str) -> str | None:
    high = spec.get("maxLength")
    if high is None or len(value) <= high:
        return None
    return (f"{field}: must be a string of {spec.get('minLength', 0)} to {high} characters "
            f"(got {len(value)})")


VALIDATION_ONLY = frozenset({"minLength", "maxLength", "maxItems", "additionalProperties"})
"""Schema keywords a model does not need to call a tool right: the size bounds and the
closed object. The server still checks every call against the whole schema and names the
bound a call broke; `repoctx tools NAME` prints them."""


def published_schema(input_schema: Any) -> Any:
    """``input_schema`` as the tool list hands it to a model: without ``VALIDATION_ONLY``
    keywords, whose cost every agent session would pay on every turn."""
    if not isinstance(input_schema, dict):
        return input_schema
    out = {key: published_schema(value) for key, value in input_schema.items()
           if key not in VALIDATION_ONLY and key != "properties"}
    if "properties" in input_schema:  # argument names are kept whatever they are
        out["properties"] = {name: published_schema(spec)
                             for name, spec in input_schema["properties"].items()}
    return out
