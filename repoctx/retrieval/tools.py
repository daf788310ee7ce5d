"""retrieval/tools — the tool surface: every ``repocontext_*`` tool and ContextPull's.

One registry serves the three doors (Python API, ``repoctx call``, the MCP server):
each tool has a name, a description, a JSON input schema and a handler. ``call``
checks the arguments against the schema (bad ones are a ``ToolError`` naming the
argument and the valid values; numbers are clamped), runs the handler, and counts
the call in the workspace's stats. ``serialize`` is the one JSON form answers are
sent in, so token budgets hold for the bytes actually sent.
"""

from __future__ import annotations

import json
from typing import Any

from repoctx.contextpull import call_tool, check_arguments, tool_definitions
from repoctx.errors import ToolError
from repoctx.tokenizer import count_tokens

from .changed import changed
from .outline import outline
from .related import related
from .status import health, index_status
from .tool_spec import Tool, schema, string, strings
from .workspace import Workspace

READ_TOOLS: tuple[Tool, ...] = (
    Tool(
        "repocontext_outline",
        "List what one file declares (classes, functions, methods, variables with their "
        "signatures and line spans), its digest and what a full read of it would cost in "
        "tokens — answered from the index alone, without reading the file.",
        schema({"path": string("Repository-relative POSIX path of the file.")}, ("path",)),
        lambda ws, a: outline(ws, a["path"]),
    ),
    Tool(
        "repocontext_related",
        "For a file or a symbol: the modules it imports, the symbols that depend on it and "
        "the tests that cover it, from the reverse cross-reference index (no scan).",
        schema(
            {
                "path": string("A repository-relative file path."),
                "symbol": string("A symbol: fully-qualified (pkg.mod.Class) or simple name."),
            }
        ),
        lambda ws, a: related(ws, a.get("path"), a.get("symbol")),
    ),
    Tool(
        "repocontext_changed",
        "What changed in the working tree since it was indexed (added, updated, removed "
        "files), which symbols those edits touch, what depends on them and which tests to "
        "run.",
        schema({"paths": strings("Limit to these files or directories.")}),
        lambda ws, a: changed(ws, a.get("paths")),
    ),
    Tool(
        "repocontext_index_status",
        "Whether the index is ready, being built or failed, with file counters, timings "
        "and the last error.",
        schema({}),
        lambda ws, a: index_status(ws),
    ),
    Tool(
        "repocontext_stats",
        "How many calls this server answered, the tokens it sent, the tokens of full file "
        "reads those answers replaced, and the net saving.",
        schema({}),
        lambda ws, a: ws.stats.as_json(),
    ),
    Tool(
        "repocontext_health",
        "Check that the store and the ContextPull export open, with versions.",
        schema({}),
        lambda ws, a: health(ws),
    ),
)

REPOCONTEXT_TOOLS: dict[str, Tool] = {t.name: t for t in READ_TOOLS}


def tools() -> dict[str, Tool]:
    """Every tool: ours, then ContextPull's (served on the workspace's export)."""
    out = dict(REPOCONTEXT_TOOLS)
    for name, spec in tool_definitions().items():
        out[name] = Tool(
            name,
            spec["description"],
            spec["inputSchema"],
            lambda ws, a, n=name: call_tool(ws.reader(), n, a),
        )
    return out


def call(ws: Workspace, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """Run tool ``name`` with ``arguments`` on ``ws``; errors are ``ToolError``."""
    available = tools()
    tool = available.get(name)
    if tool is None:
        raise ToolError(f"unknown tool {name!r}; tools: {', '.join(sorted(available))}")
    args = dict(arguments or {})
    wanted = args.pop("repoId", None)
    if wanted is not None and wanted != ws.store.repo_id and name in REPOCONTEXT_TOOLS:
        raise ToolError(f"repoId: this server serves {ws.store.repo_id!r}, not {wanted!r}")
    checked = check_arguments(name, _without_repo(tool.input_schema), args)
    result = tool.handler(ws, checked)
    ws.stats.note(count_tokens(serialize(result)), _replaced(ws, result))
    return result


def _without_repo(input_schema: dict[str, Any]) -> dict[str, Any]:
    props = {k: v for k, v in input_schema["properties"].items() if k != "repoId"}
    return {**input_schema, "properties": props}


def serialize(result: dict[str, Any]) -> str:
    """The compact JSON every door sends (and every token budget is charged on)."""
    return json.dumps(result, separators=(",", ":"), ensure_ascii=False)


def _replaced(ws: Workspace, result: dict[str, Any]) -> int:
    """Tokens of full reads of the files an answer names (what it stood in for)."""
    items = [
        item
        for key in ("hits", "entries")
        if isinstance(result.get(key), list)
        for item in result[key]
    ]
    paths = {
        item["path"]
        for item in items
        if isinstance(item, dict) and isinstance(item.get("path"), str)
    }
    if isinstance(result.get("path"), str):
        paths.add(result["path"])
    return sum((ws.node(p).tokens or 0) for p in paths if ws.node(p) is not None)
