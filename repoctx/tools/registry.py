"""tools/registry — the tool surface: every ``repocontext_*`` tool and ContextPull's.

One registry serves the three doors (Python API, ``repoctx call``, the MCP server):
each tool has a name, a description, a JSON input schema and a handler. ``call``
checks the arguments against the schema (bad ones are a ``ToolError`` naming the
argument and the valid values), runs the handler, and counts
the call in the workspace's stats. ``serialize`` is the one JSON form answers are
sent in, so token budgets hold for the bytes actually sent.
"""

from __future__ import annotations

from typing import Any

from repoctx.contextpull import call_tool, check_arguments, tool_definitions
from repoctx.errors import StoreReadOnlyError, ToolError
from repoctx.retrieval.bundle.receipts import OUTLINE as OUTLINE_UNIT
from repoctx.retrieval.bundle.receipts import SLICE
from repoctx.retrieval.bundle.wire import RESPONSE_TOKENS, dumps
from repoctx.retrieval.impact.related import DEFAULT_K as RELATED_K
from repoctx.retrieval.impact.related import K_MAX as RELATED_K_MAX
from repoctx.retrieval.impact.related import K_MIN as RELATED_K_MIN
from repoctx.retrieval.query import MAX_TEXT_CHARS
from repoctx.retrieval.workspace import Workspace
from repoctx.tools import memory as memory_tools
from repoctx.tools import outputs
from repoctx.tools.spec import Tool, integer, over_bounds, schema, string, strings

# Handlers import the module doing the work when first called, so that listing the
# tools (``repoctx serve``'s start, ``repoctx call`` of one tool) does not import every
# tool's dependencies.


def _outline(ws: Workspace, a: dict[str, Any]) -> dict[str, Any]:
    from repoctx.retrieval.impact.outline import outline

    return outline(ws, a["path"])


def _related(ws: Workspace, a: dict[str, Any]) -> dict[str, Any]:
    from repoctx.retrieval.impact.related import related

    return related(ws, a.get("path"), a.get("symbol"), a["k"])


def _changed(ws: Workspace, a: dict[str, Any]) -> dict[str, Any]:
    from repoctx.retrieval.impact.changed import changed

    return changed(ws, a.get("paths"), a.get("since"))


def _index_status(ws: Workspace, a: dict[str, Any]) -> dict[str, Any]:
    from repoctx.tools.status import index_status

    return index_status(ws)


def _health(ws: Workspace, a: dict[str, Any]) -> dict[str, Any]:
    from repoctx.tools.status import health

    return health(ws)


def _context(ws: Workspace, a: dict[str, Any]) -> dict[str, Any]:
    from repoctx.retrieval.bundle.context import context

    return context(ws, a["task"], responseBudgetTokens=a["responseBudgetTokens"],
                   top=a.get("top"), detail=a["detail"], seen=a.get("seen", ()),
                   known=a.get("known", ()), session=a.get("session"))


def _search(ws: Workspace, a: dict[str, Any]) -> dict[str, Any]:
    from repoctx.retrieval.search.hits import search
    from repoctx.tools.status import index_age

    # the age is read first: the answer is at least as new as it says
    age = index_age(ws)
    return {**search(ws, a.get("query"), queries=a.get("queries"), k=a["k"],
                     kinds=a.get("kinds"), paths=a.get("paths"), refresh=a["refresh"]),
            "indexAgeSeconds": age}


def _symbols(ws: Workspace, a: dict[str, Any]) -> dict[str, Any]:
    from repoctx.retrieval.search.hits import search
    from repoctx.tools.status import index_age

    age = index_age(ws)
    return {**search(ws, a["query"], k=a["k"], kinds=["symbol"]), "indexAgeSeconds": age}


READ_TOOLS: tuple[Tool, ...] = (
    Tool(
        "repocontext_outline",
        "What one file declares (kind, signature, lines), its digest and full-read token cost, "
        "from the index.",
        schema({"path": string("Repository-relative path.")}, ("path",)),
        _outline, title="Outline a file", output_schema=outputs.OUTLINE,
    ),
    Tool(
        "repocontext_related",
        "Imports, dependents and covering tests of a file or a symbol.",
        schema(
            {
                "path": string("A file path."),
                "symbol": string("Fully-qualified or simple name."),
                "k": integer("Most entries per list.", RELATED_K_MIN,
                             RELATED_K_MAX, RELATED_K),
            }
        ),
        _related, title="Imports, dependents and tests", output_schema=outputs.RELATED,
    ),
    Tool(
        "repocontext_changed",
        "Working-tree edits since a git revision (default HEAD) or the last index: files, "
        "definitions touched, their dependents and the tests to run.",
        schema({"paths": strings("Only these files or folders."),
                "since": string("Git revision, or \"index\".", 256)}),
        _changed, title="What changed", output_schema=outputs.CHANGED,
    ),
    Tool(
        "repocontext_index_status",
        "Whether the index is ready, with counters, timings and the last error.",
        schema({}),
        _index_status, title="Index status", output_schema=outputs.INDEX_STATUS,
    ),
    Tool(
        "repocontext_stats",
        "Calls answered, tokens sent and full-read tokens saved.",
        schema({}),
        lambda ws, a: ws.stats.as_json(), title="Token savings of this server",
        output_schema=outputs.STATS,
    ),
    Tool(
        "repocontext_health",
        "Check that the store and the export open.",
        schema({}),
        _health, title="Store and export health", output_schema=outputs.HEALTH,
    ),
)

CONTEXT_TOOL = Tool(
    "repocontext_context",
    "The code a task needs, packed to fit a token budget; what a session already holds comes back "
    "as reused.",
    schema({
        "task": string("The task in words, or a whole pasted issue.", MAX_TEXT_CHARS),
        "responseBudgetTokens": integer("Most tokens for the whole answer.", 1, 200_000,
                                        8192),
        "top": integer("Most files to consider.", 1, 50),
        "detail": {"type": "string", "enum": ["auto", "paths", "outline", "slices"],
                   "default": "auto", "description": "How much of each file."},
        "seen": strings("Receipts already held.", 1000),
        "known": strings("path@contentHash of files held.", 1000),
        "session": string("Session id: what it was sent is reused.", 128),
    }, ("task",)),
    _context,
    # With a session, records its deliveries (only adds), and a repeat in that session
    # answers the units it already sent as reused.
    writes_with=("session",), title="Code bundle for a task", output_schema=outputs.CONTEXT,
)

SEARCH_TOOLS = (
    Tool(
        "repocontext_search",
        "Ranked files, symbols and sections for a query, with lines, snippet, reasons and "
        "freshness.",
        schema({
            "query": string("Words, an identifier or a pasted issue.", MAX_TEXT_CHARS),
            "queries": strings("Several queries at once.", 10, MAX_TEXT_CHARS),
            "k": integer("Most hits.", 1, 100, 10),
            "kinds": {"type": "array", "maxItems": 4,
                      "items": {"type": "string", "enum": ["file", "symbol", "section",
                                                           "memory"]}},
            "paths": strings("Only these globs or folders.", 50),
            "refresh": {"type": "boolean", "default": False,
                        "description": "Re-index stale files first."},
        }),
        _search,
        # refresh=true re-indexes stale files: the index follows the files on disk, so a
        # repeat changes nothing more, and nothing of the user's is overwritten.
        writes_with=("refresh",), title="Search the repository", output_schema=outputs.SEARCH,
    ),
    Tool(
        "repocontext_symbols",
        "Find definitions by name, part of a name or words.",
        schema({"query": string("A name or part of one.", 1000),
                "k": integer("Most symbols.", 1, 100, 20)}, ("query",)),
        _symbols, title="Find symbols", output_schema=outputs.SYMBOLS,
    ),
)

PATH_ARGUMENTS = frozenset({"path", "paths", "pathPrefix"})
"""Arguments of our tools that name repository paths (normalised before the handler)."""

REPOCONTEXT_TOOLS: dict[str, Tool] = {
    t.name: t for t in (*READ_TOOLS, *SEARCH_TOOLS, CONTEXT_TOOL, *memory_tools.TOOLS)
}

CONTEXTPULL_TITLES = {"search": "Search the export", "read": "Read a section",
                      "grep": "Grep the export", "neighbours": "A section and its neighbours",
                      "index": "Overview of the export"}
"""Titles of ContextPull's tools (tools.json, the reader's contract, names none)."""


def tools() -> dict[str, Tool]:
    """Every tool: ours, then ContextPull's (served on the workspace's export)."""
    out = dict(REPOCONTEXT_TOOLS)
    for name, spec in tool_definitions().items():
        out[name] = Tool(
            name,
            spec["description"],
            spec["inputSchema"],
            lambda ws, a, n=name: call_tool(ws.reader(), n, a),
            title=CONTEXTPULL_TITLES[name],
            output_schema=outputs.CONTEXTPULL[name],
        )
    return out


def call(ws: Workspace, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run tool ``name`` with ``arguments`` on ``ws``; errors are ``ToolError``.

    Every door comes through here: the arguments are checked against the tool's
    published input schema, then repository paths in them (``path``, ``paths``,
    ``pathPrefix``) are normalised (``./x``, absolute paths inside the repository and
    ``\\`` separators name the same file); clamping to what exists is the tool's own step.
    """
    tool = find_tool(name)
    args = {} if arguments is None else arguments
    if isinstance(args, dict) and name not in REPOCONTEXT_TOOLS:
        # ContextPull's contract has no repoId: one server serves one repository
        args = {k: v for k, v in args.items() if k != "repoId"}
    too_big = over_bounds(tool.input_schema, args)
    if too_big is not None:  # before the schema walk, which is as long as the arguments
        raise ToolError(too_big)
    checked = check_arguments(name, tool.input_schema, args)
    wanted = checked.pop("repoId", None)
    if wanted is not None and wanted != ws.store.repo_id:
        raise ToolError(f"repoId: this server serves {ws.store.repo_id!r}, not {wanted!r}")
    if name in REPOCONTEXT_TOOLS:
        checked = _with_repo_paths(ws, checked)
    try:
        result = tool.handler(ws, checked)
    except StoreReadOnlyError as exc:
        raise ToolError(f"{name}: {exc}") from None
    ws.stats.note(_response_tokens(result), _stood_in(ws, result))
    return result


def find_tool(name: str) -> Tool:
    """The tool called ``name``; an unknown name is a ``ToolError`` with the nearest names."""
    available = tools()
    if name in available:
        return available[name]
    from rapidfuzz import process  # only a mistyped name pays for the import

    scored = process.extract(name, list(available), limit=3, score_cutoff=60)
    near = [n for n, score, _ in scored if score >= scored[0][1] - 3]
    hint = f"did you mean {' or '.join(near)}? " if near else ""
    raise ToolError(f"unknown tool {name!r}; {hint}`repoctx tools` lists them all")


def _with_repo_paths(ws: Workspace, args: dict[str, Any]) -> dict[str, Any]:
    out = dict(args)
    for key in PATH_ARGUMENTS & out.keys():
        value = out[key]
        if isinstance(value, list):  # the root among path filters is no filter at all
            value = [p for p in (ws.repo_path(v, key) for v in value) if p] or None
        out[key] = ws.repo_path(value, key) if isinstance(value, str) else value
    return out


def _response_tokens(result: dict[str, Any]) -> int | str:
    """The tokens of ``result`` as sent when a sealed response (``wire.seal``) states
    them, else ``result`` as sent, for ``CallStats`` to count when asked."""
    sealed = result.get(RESPONSE_TOKENS)
    return sealed if type(sealed) is int else serialize(result)


serialize = dumps
"""The one JSON form every door sends (and every token budget is charged on)."""


def _stood_in(ws: Workspace, result: dict[str, Any]) -> dict[str, int]:
    """Path -> full-read tokens of each file the answer stood in for: an outline, and a
    context entry sent as slices or an outline (not whole, not as a bare path)."""
    paths = [entry["path"] for entry in result.get("entries") or ()
             if isinstance(entry, dict) and isinstance(entry.get("path"), str)
             and _partial(entry.get("units"))]
    if isinstance(result.get("path"), str) and isinstance(result.get("symbols"), list):
        paths.append(result["path"])  # an outline
    nodes = {path: ws.node(path) for path in paths}
    return {path: node.tokens or 0 for path, node in nodes.items() if node is not None}


def _partial(units: Any) -> bool:
    """True for units that are definitions or an outline of a file, never all of it."""
    kinds = {unit.get("kind") for unit in units or () if isinstance(unit, dict)}
    return bool(kinds) and kinds <= {SLICE, OUTLINE_UNIT}
