"""server — the MCP server (stdio) exposing the tools of ``tools.registry``, and the live
index that follows the working tree while it serves (``live``)."""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from .live import (
        Follower,
        PassDone,
        Target,
        WatchTiming,
        cannot_watch,
        exit_on_sigterm,
        following,
    )
    from .mcp_server import RepoContextServer, serve
    from .repos import Repo, Repos, open_repos

__all__ = [
    "Follower",
    "PassDone",
    "Repo",
    "RepoContextServer",
    "Repos",
    "Target",
    "WatchTiming",
    "cannot_watch",
    "exit_on_sigterm",
    "following",
    "open_repos",
    "serve",
]

export_lazily(__name__, {
    ".live": ("Follower", "PassDone", "Target", "WatchTiming", "cannot_watch",
              "exit_on_sigterm", "following"),
    ".mcp_server": ("RepoContextServer", "serve"),
    ".repos": ("Repo", "Repos", "open_repos"),
})
