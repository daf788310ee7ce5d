"""repoctx — a repository-context store for coding agents.

Indexes a repository into a CRDT store (LMDB), keeps it converged with an incremental
reconcile, exports a ContextPull SQLite store, and serves ``repocontext_*`` tools.
"""

from .store import FORMAT_VERSION, Store, default_repo_id, open_store

__all__ = ["FORMAT_VERSION", "Store", "default_repo_id", "open_store"]
