"""sync/limits — how much and how slowly a ``sync-serve`` peer may send, and its tokens.

Plain values, kept apart from the server and the peers so that the command line can show
them as defaults, and name the token variable, without importing the HTTP stack or the
store. A leaf: imports nothing from repoctx.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_BODY = 512 << 20
"""Largest request body by default (bytes)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """How much a request may send and how slowly (seconds)."""

    max_body: int = MAX_BODY
    """Largest request body in bytes, declared or streamed."""
    body_idle_s: float = 30.0
    """Longest wait for the next chunk of a body."""
    body_total_s: float = 600.0
    """Longest time to receive a whole body."""
    max_in_flight: int = 2 * MAX_BODY
    """Most body bytes held at once over every connection (503 for the one crossing it)."""
    request_s: float = 120.0
    """Longest time to decode and answer one request once its body is in (504 beyond)."""
    workers: int = 4
    """Requests answered at once; pushes and finishes take turns among them."""


DEFAULT_LIMITS = Limits()

MAX_CONNECTIONS = 256
"""Connections served at once (uvicorn answers 503 beyond); a stalled one lasts at most
``Timeouts.head_s``."""
TOKEN_MIN_CHARS = 22
"""22 URL-safe characters carry 132 bits: ``secrets.token_urlsafe(16)`` and longer."""
TOKEN_HINT = 'python -c "import secrets;print(secrets.token_urlsafe(32))"'
TOKEN_ENV = "REPOCTX_SYNC_TOKEN"
"""Where ``repoctx sync`` and ``repoctx sync-serve`` read the token when no ``--token``."""


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Connection timeouts of ``sync-serve`` (seconds)."""

    head_s: float = 10.0
    """From a connection's first byte (or its opening) to complete request headers."""
    idle_s: float = 120.0
    """A kept-alive connection with no request in progress (the client's own timeout)."""


DEFAULT_TIMEOUTS = Timeouts()
