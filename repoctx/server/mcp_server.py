"""server/mcp_server — the tools over MCP (stdio), on the official SDK's ``MCPServer``.

Tools are listed with their title, their explicit input and output JSON schemas from
the one registry (``tools.registry``) and annotations saying what each may do
(read-only, destructive, idempotent; none reaches beyond the repository), and answered
with the same compact JSON every other door sends, as text and as structured content.
Only the tools capability is advertised: the SDK's prompt and resource handlers are
removed, since this server has neither. Errors are tool errors (``isError``) with a
message, never a traceback. The server writes only inside the store (sessions,
refreshes) and answers from the newest store and export on every call.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib import metadata
from typing import Any

from mcp.server import MCPServer, Server
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import Tool as MCPTool

from repoctx.errors import RepoctxError
from repoctx.retrieval import Workspace
from repoctx.tools.registry import find_tool, serialize, tools
from repoctx.tools.spec import Tool, over_bounds, published_schema

from .guarded_stdio import guarded_stdio_server
from .repos import Repos

INSTRUCTIONS = (
    "repoctx answers questions about an indexed repository: search it "
    "(repocontext_search), outline a file, find what depends on or tests a symbol "
    "(repocontext_related), see what an edit touches (repocontext_changed), and get a "
    "token-budgeted bundle of the code a task needs (repocontext_context). The "
    "ContextPull tools (search, read, grep, neighbours, index) read the document export."
)


class RepoContextServer(MCPServer):
    """An MCP server bound to one workspace, or to several repositories (``repos``)."""

    def __init__(self, workspace: Workspace | Callable[[], Workspace] | Repos) -> None:
        self.repos = workspace if isinstance(workspace, Repos) else Repos.single(workspace)
        super().__init__(name="repoctx", instructions=INSTRUCTIONS + self.repos.instructions(),
                         version=metadata.version("repoctx"), log_level="WARNING",
                         subscriptions=False)  # the tool list never changes
        _serve_tools_only(self._lowlevel_server)

    async def list_tools(self) -> list[MCPTool]:
        """Every tool of the registry with its title, schemas and annotations (and
        ``repo`` when several repositories are served)."""
        return [mcp_tool(t, self.repos.published) for t in tools().values()]

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Any = None) -> CallToolResult:
        """Run one tool on a worker thread under the call deadline (``bounded_calls``),
        its repository chosen (``repos``) and its arguments' size bounds checked first; a
        ``RepoctxError`` becomes an error result naming what was wrong."""
        try:
            tool = find_tool(name)
            repo, arguments = self.repos.route(arguments)
            too_big = over_bounds(tool.input_schema, arguments)
            if too_big is not None:  # refused before the workspace is opened
                return error_result(too_big)
            result = await repo.calls().run(name, arguments)
        except RepoctxError as exc:
            return error_result(str(exc))
        except Exception as exc:  # a bug must still answer as a tool error, logged here
            logging.getLogger("repoctx").exception("tool %s failed", name)
            return error_result(f"internal error in {name}: {type(exc).__name__}: {exc}")
        return CallToolResult(content=[TextContent(type="text", text=serialize(result))],
                              structured_content=result, is_error=False)

    async def run_stdio_async(self) -> None:
        """Serve over stdio, every line read screened first (``guarded_stdio``): a
        message too large, too deep or not JSON is answered with its JSON-RPC error."""
        async with guarded_stdio_server() as (read_stream, write_stream):
            await self._lowlevel_server.run(
                read_stream, write_stream, self._lowlevel_server.create_initialization_options())

    def close(self) -> None:
        """Close every workspace a call opened (a repository's opens at its first call:
        one not indexed when the server started answers "no index" until it is)."""
        self.repos.close()


def mcp_tool(tool: Tool, publish: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
             ) -> MCPTool:
    """How MCP lists ``tool``: a read-only tool is idempotent and never destructive;
    ``publish`` adjusts the published input schema (``Repos.published``)."""
    schema = published_schema(tool.input_schema)
    return MCPTool(
        name=tool.name, title=tool.title, description=tool.description,
        input_schema=publish(schema) if publish else schema, output_schema=tool.output_schema,
        annotations=ToolAnnotations(
            title=tool.title, read_only_hint=tool.read_only,
            destructive_hint=tool.destructive and not tool.read_only,
            idempotent_hint=tool.idempotent or tool.read_only, open_world_hint=False))


def _serve_tools_only(server: Server) -> None:
    """Drop the prompt and resource handlers ``MCPServer`` registers: the capabilities a
    client is told of are derived from the handlers, and this server has neither."""
    for method in [m for m in server._request_handlers if m.startswith(_NOT_SERVED)]:
        del server._request_handlers[method]


_NOT_SERVED = ("prompts/", "resources/")


def error_result(message: str) -> CallToolResult:
    """A tool error carrying ``{"error": {"message": ...}}``."""
    payload = serialize({"error": {"message": message}})
    return CallToolResult(content=[TextContent(type="text", text=payload)], is_error=True)


def serve(workspace: Workspace | Callable[[], Workspace] | Repos) -> None:
    """Serve a workspace (or what opens it, at the first call, or several repositories)
    over stdio until the client disconnects."""
    server = RepoContextServer(workspace)
    try:
        server.run("stdio")
    finally:
        server.close()
