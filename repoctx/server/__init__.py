"""server — the MCP server (stdio) exposing the tools of ``retrieval.tools``."""

from .mcp_server import RepoContextServer, serve

__all__ = ["RepoContextServer", "serve"]
