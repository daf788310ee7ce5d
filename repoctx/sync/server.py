"""sync/server — ``repoctx sync-serve``: the HTTP server in front of ``http_app``.

uvicorn (h11) serves the ASGI ``SyncApp`` on one event loop, so connections are
served concurrently: a client that sends half a request and stalls holds only its
own connection (a server of one connection at a time, such as ``http.server``,
lets one idle client block every peer). Timeouts: a connection must complete
its request headers within ``Timeouts.head_s`` of opening (or of its first byte
after a kept-alive response), else it gets 408 and is closed; a kept-alive connection
idle for ``idle_s`` is closed; bodies have their own limits (``limits.Limits``).
h11 parses ``Content-Length`` strictly (``-1`` or ``abc`` is a 400, not a traceback)
and bounds header size; at most ``MAX_CONNECTIONS`` are served at once (503 beyond).

Loopback by default. Binding any other address requires a shared token with real
entropy (``check_token``: 128 bits or more), which every request carries as
``Authorization: Bearer …``. With ``--tls-cert``/``--tls-key`` the server speaks
HTTPS (uvicorn's ssl options); without them, off loopback the token and records
cross the network in clear, so reach the port through an SSH tunnel or a VPN
instead (``sync-serve`` says so when it starts). A push may only carry records of the
repositories the served store holds when the server starts, plus those named with
``allow_repos`` (``--allow-repo``); anything else is refused with 403.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import ssl
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from repoctx.errors import SyncError, SyncRefusedError

from .http_app import SyncApp
from .limits import (
    DEFAULT_LIMITS,
    DEFAULT_TIMEOUTS,
    MAX_CONNECTIONS,
    TOKEN_ENV,
    TOKEN_HINT,
    TOKEN_MIN_CHARS,
    Limits,
    Timeouts,
)

if TYPE_CHECKING:
    from uvicorn.protocols.http.h11_impl import H11Protocol

    from repoctx.store import Store

    from .protocol import OnFinish


def parse_bind(bind: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``PORT``) -> (host, port); the host defaults to 127.0.0.1."""
    host, _, port = bind.rpartition(":")
    try:
        return (host.strip("[]") or "127.0.0.1"), int(port)
    except ValueError:
        raise SyncError(f"--bind takes HOST:PORT, not {bind!r}") from None


def is_loopback(host: str) -> bool:
    """True when ``host`` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_token(token: str) -> None:
    """Refuse a token an attacker could guess: short, spaced, or one repeated character."""
    weak = (len(token) < TOKEN_MIN_CHARS or not token.isascii() or not token.isprintable()
            or any(c.isspace() for c in token) or len(set(token)) < 8)
    if weak:
        raise SyncRefusedError(
            f"a sync token must hold at least 128 bits: {TOKEN_MIN_CHARS} or more URL-safe "
            f"characters, no spaces, not one character repeated; make one with {TOKEN_HINT}")


def check_bind(host: str, token: str | None) -> None:
    """Refuse to serve beyond loopback without a strong shared token."""
    if is_loopback(host):
        return
    if not token:
        raise SyncRefusedError(
            f"sync-serve on {host} would accept any machine: give a shared token "
            f"(--token or {TOKEN_ENV}; make one with {TOKEN_HINT}), or bind 127.0.0.1")
    check_token(token)


class SyncServer:
    """``sync-serve``: uvicorn serving ``SyncApp`` for one store on a bound socket."""

    def __init__(self, store: Store, host: str = "127.0.0.1", port: int = 0, *,
                 token: str | None = None, on_finish: OnFinish | None = None,
                 tls: tuple[Path, Path] | None = None, limits: Limits = DEFAULT_LIMITS,
                 timeouts: Timeouts = DEFAULT_TIMEOUTS,
                 allow_repos: tuple[str, ...] = ()) -> None:
        import uvicorn  # here, not at import: the CLI starts without loading a web server

        check_bind(host, token)
        from .digests import ensure_digests
        from .protocol import Responder, known_repos  # the store side, loaded to serve

        ensure_digests(store)  # now, so that no hello writes while others read

        self.push_repos = frozenset(known_repos(store)) | {store.repo_id} | set(allow_repos)
        """Repository ids a push may carry keys of: those the store holds, and more."""
        self.app = SyncApp(Responder(store, on_finish), token, limits, self.push_repos)
        self._socket = _bind(host, port)
        cert, key = tls if tls else (None, None)
        config = uvicorn.Config(
            self.app, http=_guarded(timeouts.head_s), lifespan="off", access_log=False,
            timeout_keep_alive=max(1, round(timeouts.idle_s)),
            limit_concurrency=MAX_CONNECTIONS, log_config=None, server_header=False,
            timeout_graceful_shutdown=5,
            ssl_certfile=cert and str(cert), ssl_keyfile=key and str(key))
        try:
            config.load()  # reads the certificate now, so a bad one fails before serving
        except (OSError, ssl.SSLError) as exc:
            self._socket.close()
            raise SyncError(f"cannot use --tls-cert {cert} / --tls-key {key}: {exc}") from None
        self._server = uvicorn.Server(config)
        self._stopped = threading.Event()

    @property
    def port(self) -> int:
        """The port actually bound (useful with port 0)."""
        return self._socket.getsockname()[1]

    def serve_forever(self) -> None:
        """Serve until ``shutdown`` (or SIGINT/SIGTERM when run on the main thread)."""
        try:
            self._server.run(sockets=[self._socket])
        finally:
            self._stopped.set()

    def shutdown(self) -> None:
        """Ask the serving loop to stop and wait for it."""
        self._server.should_exit = True
        self._stopped.wait(30)

    def server_close(self) -> None:
        """Release the socket and the worker thread."""
        self._socket.close()
        self.app.close()


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise SyncError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    return sock


_TIMEOUT_TEXT = b"request headers did not arrive in time"
_TIMEOUT_RESPONSE = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain\r\n"
                     b"connection: close\r\ncontent-length: %d\r\n\r\n%s"
                     % (len(_TIMEOUT_TEXT), _TIMEOUT_TEXT))


def _guarded(head_s: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a deadline on request headers (uvicorn has none)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            # h11 writes a response's head and body apart: without NODELAY the body waits
            # for the peer's delayed ACK, 40 ms per request (measured: 44 ms vs 0.4 ms).
            sock = transport.get_extra_info("socket")
            if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                if self._head_timer is None and self.conn.our_state is h11.IDLE:
                    self._arm()
            elif self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def connection_lost(self, exc: Exception | None) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._head_timer = self.loop.call_later(head_s, self._head_timeout)

        def _head_timeout(self) -> None:
            self._head_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                logging.getLogger("repoctx.sync.server").warning(
                    "closed a connection from %s: no complete request within %ss",
                    _peer(self.client), head_s)
                self.transport.write(_TIMEOUT_RESPONSE)
                self.transport.close()

    return GuardedH11Protocol


def _peer(client: tuple[str, int] | None) -> str:
    return f"{client[0]}:{client[1]}" if client else "an unknown client"
