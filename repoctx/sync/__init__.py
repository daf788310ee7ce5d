"""sync — replica exchange: anti-entropy between stores, and a NATS JetStream delta log.

Replicas converge by shipping records and merging them (DESIGN.md §7). The trees layer
keeps a change log and per-tree segment digests in every write transaction
(``trees.changelog``); here they are compared top-down with a peer (``session``), over
a transport (a store directory on this machine, or a ``sync-serve`` HTTP server), and
the differing records shipped both ways and merged on arrival (``receive``). Only
store-of-record trees replicate; the vector index and coverage trees stay local.
Records carry their own expiry: an expired record merges like any other and is
hidden everywhere it lands.
"""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from .digests import ensure_digests
    from .http_app import SyncApp
    from .limits import MAX_BODY, TOKEN_ENV, TOKEN_HINT, Limits, Timeouts
    from .nats_log import NatsLog, replicate
    from .peer import adopt_repo_id, open_peer, open_peer_store, store_directory
    from .protocol import PROTOCOL, Responder, check_peer, identity
    from .receive import Received, canonical, receive
    from .refresh import refresh_export, refresher
    from .server import SyncServer, check_bind, check_token, is_loopback, parse_bind
    from .session import SyncReport, sync
    from .transport import HttpTransport, LocalTransport, Transport

__all__ = [
    "HttpTransport",
    "Limits",
    "LocalTransport",
    "MAX_BODY",
    "NatsLog",
    "PROTOCOL",
    "Received",
    "Responder",
    "SyncApp",
    "SyncReport",
    "SyncServer",
    "TOKEN_ENV",
    "TOKEN_HINT",
    "Timeouts",
    "Transport",
    "adopt_repo_id",
    "canonical",
    "check_bind",
    "check_peer",
    "check_token",
    "ensure_digests",
    "identity",
    "is_loopback",
    "open_peer",
    "open_peer_store",
    "parse_bind",
    "receive",
    "refresh_export",
    "refresher",
    "replicate",
    "store_directory",
    "sync",
]

export_lazily(__name__, {
    ".digests": ("ensure_digests",),
    ".http_app": ("SyncApp",),
    ".limits": ("MAX_BODY", "TOKEN_ENV", "TOKEN_HINT", "Limits", "Timeouts"),
    ".nats_log": ("NatsLog", "replicate"),
    ".peer": ("adopt_repo_id", "open_peer", "open_peer_store", "store_directory"),
    ".protocol": ("PROTOCOL", "Responder", "check_peer", "identity"),
    ".receive": ("Received", "canonical", "receive"),
    ".refresh": ("refresh_export", "refresher"),
    ".server": ("SyncServer", "check_bind", "check_token", "is_loopback", "parse_bind"),
    ".session": ("SyncReport", "sync"),
    ".transport": ("HttpTransport", "LocalTransport", "Transport"),
})
