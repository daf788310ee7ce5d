"""retrieval/tools — the tool surface: every ``repocontext_*`` tool and ContextPull's.

One registry serves the three doors (Python API, ``repoctx call``, the MCP server):
each tool has a name, a description, a JSON input schema and a handler. ``call``
checks the arguments against the schema (bad ones are a ``ToolError`` naming the
argument and the valid values; numbers are clamped), runs the handler, and counts
the call in the workspace's stats. ``serialize`` is the one JSON form answers are
sent in, so token budgets hold for the bytes actually sent.
"""

from __future__ import annotations

from typing import Any

from repoctx.contextpull import call_tool, check_arguments, tool_definitions
from repoctx.errors import ToolError
from repoctx.tokenizer import count_tokens

from . import memory_tools
from .changed import changed
from .context import context
from .outline import outline
from .related import related
from .search import search
from .status import health, index_status
from .tool_spec import Tool, integer, schema, string, strings
from .wire import RESPONSE_TOKENS, dumps
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

CONTEXT_TOOL = Tool(
    "repocontext_context",
    "Assemble the code a task needs within a token budget: the definitions the task "
    "names, what depends on them, their tests and the best search hits, packed as whole "
    "files, symbol slices, outlines or paths. The whole JSON answer fits "
    "responseBudgetTokens; units already delivered to the session (or listed in seen) "
    "come back under reused and cost nothing.",
    schema({
        "task": string("What the agent is trying to do, in words.", 8000),
        "responseBudgetTokens": integer("Most tokens the whole answer may cost.", 1, 200_000,
                                        8192),
        "top": integer("Most files to consider.", 1, 50, 10),
        "detail": {"type": "string", "enum": ["auto", "paths", "outline", "slices"],
                   "default": "auto", "description": "How much of each file to send."},
        "seen": strings("Receipts of units the caller already holds.", 1000),
        "known": strings("path@contentHash claims of whole files the session holds.", 1000),
        "session": string("A session id: delivered units are remembered for 6 hours.", 128),
    }, ("task",)),
    lambda ws, a: context(ws, a["task"], responseBudgetTokens=a["responseBudgetTokens"],
                          top=a["top"], detail=a["detail"], seen=a.get("seen", ()),
                          known=a.get("known", ()), session=a.get("session")),
    read_only=False,
)

SEARCH_TOOLS = (
    Tool(
        "repocontext_search",
        "Find where something lives in the repository: ranked hits over files, symbols "
        "and sections, each with the matched lines, a snippet around the match, why it "
        "matched (symbol, path, heading, content, typo correction) and whether the file "
        "on disk is still what was indexed (fresh). refresh re-indexes stale files first; "
        "queries answers several related queries in one call.",
        schema({
            "query": string("What to look for: words, an identifier, a phrase.", 1000),
            "queries": strings("Several related queries, answered together.", 10),
            "k": integer("Most hits to return.", 1, 100, 10),
            "kinds": {"type": "array", "maxItems": 4, "description": "Only these kinds.",
                      "items": {"type": "string", "enum": ["file", "symbol", "section",
                                                           "memory"]}},
            "paths": strings("Only paths matching these globs or directories.", 50),
            "refresh": {"type": "boolean", "default": False,
                        "description": "Re-index stale files before answering."},
        }),
        lambda ws, a: search(ws, a.get("query"), queries=a.get("queries"), k=a["k"],
                             kinds=a.get("kinds"), paths=a.get("paths"),
                             refresh=a["refresh"]),
        read_only=False,
    ),
    Tool(
        "repocontext_symbols",
        "Find symbols (classes, functions, methods, variables) by name, part of a name or "
        "description, with where each is declared.",
        schema({"query": string("A name, part of one, or words.", 1000),
                "k": integer("Most symbols to return.", 1, 100, 20)}, ("query",)),
        lambda ws, a: search(ws, a["query"], k=a["k"], kinds=["symbol"]),
    ),
)

REPOCONTEXT_TOOLS: dict[str, Tool] = {
    t.name: t for t in (*READ_TOOLS, *SEARCH_TOOLS, CONTEXT_TOOL, *memory_tools.TOOLS)
}


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
    check_unicode(args)
    wanted = args.pop("repoId", None)
    if wanted is not None and wanted != ws.store.repo_id and name in REPOCONTEXT_TOOLS:
        raise ToolError(f"repoId: this server serves {ws.store.repo_id!r}, not {wanted!r}")
    checked = check_arguments(name, _without_repo(tool.input_schema), args)
    result = tool.handler(ws, checked)
    ws.stats.note(_response_tokens(result), _replaced(ws, result))
    return result


def check_unicode(value: Any, where: str = "arguments") -> None:
    """Refuse text no UTF-8 can carry (a lone surrogate, as JSON's ``\\ud800`` gives)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ToolError(f"{where}: not valid Unicode text (a lone surrogate at "
                            f"character {exc.start}); send UTF-8 text") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            check_unicode(key, where)
            check_unicode(item, key if isinstance(key, str) else where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            check_unicode(item, f"{where}[{i}]")


def _response_tokens(result: dict[str, Any]) -> int:
    """The tokens of ``result`` as sent: a sealed response (``wire.seal``) states them."""
    sealed = result.get(RESPONSE_TOKENS)
    return sealed if type(sealed) is int else count_tokens(serialize(result))


def _without_repo(input_schema: dict[str, Any]) -> dict[str, Any]:
    props = {k: v for k, v in input_schema["properties"].items() if k != "repoId"}
    return {**input_schema, "properties": props}


serialize = dumps
"""The one JSON form every door sends (and every token budget is charged on)."""


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
