"""server — the MCP server (stdio) exposing the tools of ``tools.registry``."""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from .mcp_server import RepoContextServer, serve
    from .repos import Repo, Repos, open_repos

__all__ = ["Repo", "RepoContextServer", "Repos", "open_repos", "serve"]

export_lazily(__name__, {
    ".mcp_server": ("RepoContextServer", "serve"),
    ".repos": ("Repo", "Repos", "open_repos"),
})
