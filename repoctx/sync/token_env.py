"""sync/token_env — the environment variable holding the shared sync token.

Kept apart from ``peer`` (which imports the store) so that ``repoctx --help`` and the
option declarations of ``repoctx sync`` can name it without importing the store
(issue 14, finding 8). A leaf: imports nothing.
"""

TOKEN_ENV = "REPOCTX_SYNC_TOKEN"
"""Where ``repoctx sync`` and ``repoctx sync-serve`` read the token when no ``--token``."""
