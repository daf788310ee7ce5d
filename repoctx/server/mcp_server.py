"""server/mcp_server — the tools over MCP (stdio), on the official SDK's ``MCPServer``.

Tools are listed with their explicit JSON schemas from the one registry
(``retrieval.tools``), annotated read-only where they are, and answered with the
same compact JSON every other door sends. Errors are tool errors (``isError``) with a
message, never a traceback. The server writes only inside the store (sessions,
refreshes) and answers from the newest store and export on every call.
"""

from __future__ import annotations

import logging
from importlib import metadata
from typing import Any

from mcp.server import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import Tool as MCPTool

from repoctx.errors import RepoctxError
from repoctx.retrieval import Workspace
from repoctx.retrieval.tools import serialize, tools

from .bounded_calls import BoundedCalls

INSTRUCTIONS = (
    "repoctx answers questions about one indexed repository: search it "
    "(repocontext_search), outline a file, find what depends on or tests a symbol "
    "(repocontext_related), see what an edit touches (repocontext_changed), and get a "
    "token-budgeted bundle of the code a task needs (repocontext_context). The "
    "ContextPull tools (search, read, grep, neighbours, index) read the document export."
)


class RepoContextServer(MCPServer):
    """An MCP server bound to one workspace."""

    def __init__(self, ws: Workspace) -> None:
        super().__init__(name="repoctx", instructions=INSTRUCTIONS,
                         version=metadata.version("repoctx"), log_level="WARNING")
        self.ws = ws

    async def list_tools(self) -> list[MCPTool]:
        """Every tool of the registry with its schema and annotations."""
        return [MCPTool(name=t.name, description=t.description, input_schema=t.input_schema,
                        annotations=ToolAnnotations(read_only_hint=t.read_only,
                                                    destructive_hint=False,
                                                    open_world_hint=False))
                for t in tools().values()]

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Any = None) -> CallToolResult:
        """Run one tool on a worker thread under the call deadline (``bounded_calls``);
        a ``RepoctxError`` becomes an error result naming what was wrong."""
        try:
            result = await self._bounded_calls().run(name, arguments)
        except RepoctxError as exc:
            return error_result(str(exc))
        except Exception as exc:  # a bug must still answer as a tool error, logged here
            logging.getLogger("repoctx").exception("tool %s failed", name)
            return error_result(f"internal error in {name}: {type(exc).__name__}: {exc}")
        return CallToolResult(content=[TextContent(type="text", text=serialize(result))],
                              structured_content=result, is_error=False)

    def _bounded_calls(self) -> BoundedCalls:
        """The call runner of this server, made on the first call."""
        runner = getattr(self, "_repoctx_calls", None)
        if runner is None:
            runner = self._repoctx_calls = BoundedCalls(self.ws)
        return runner


def error_result(message: str) -> CallToolResult:
    """A tool error carrying ``{"error": {"message": ...}}``."""
    payload = serialize({"error": {"message": message}})
    return CallToolResult(content=[TextContent(type="text", text=payload)], is_error=True)


def serve(ws: Workspace) -> None:
    """Serve ``ws`` over stdio until the client disconnects."""
    RepoContextServer(ws).run("stdio")
