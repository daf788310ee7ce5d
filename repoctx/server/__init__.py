"""server — the MCP server (stdio) exposing the tools of ``tools.registry``."""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from .mcp_server import RepoContextServer, serve

__all__ = ["RepoContextServer", "serve"]

export_lazily(__name__, {
    ".mcp_server": ("RepoContextServer", "serve"),
})
