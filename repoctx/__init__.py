"""repoctx — a repository-context store for coding agents.

Indexes a repository into a CRDT store (LMDB), keeps it converged with an incremental
reconcile, exports a ContextPull SQLite store, and serves ``repocontext_*`` tools.
The exports are imported on first use (``repoctx.lazy``), so a command that needs no
store starts fast.
"""

from typing import TYPE_CHECKING

from .lazy import export_lazily

if TYPE_CHECKING:
    from .store import FORMAT_VERSION, Store, default_repo_id, open_store

__all__ = ["FORMAT_VERSION", "Store", "default_repo_id", "open_store"]

__version__ = "0.1.0"
"""pyproject.toml's version (a test keeps them equal): read without ``importlib.metadata``,
whose import alone cost a no-op ``repoctx index`` ~10 ms."""

export_lazily(__name__, {".store": tuple(__all__)})
