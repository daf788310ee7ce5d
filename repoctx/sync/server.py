"""sync/server — ``repoctx sync-serve``: answer peers' sync requests over HTTP.

``POST /v1/{op}`` with a msgpack body; the answer is a msgpack body (``protocol``).
One request at a time (a single-threaded server: the store's clock and the merge
transactions need no more). Loopback by default; binding any other address requires
a shared token, which every request then carries as ``Authorization: Bearer …``
(compared in constant time). Refusals answer 403 with a message, a missing or wrong
token 401, a malformed request 400; the server never sends a traceback.
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

from repoctx.errors import RepoctxError, SyncError, SyncRefusedError
from repoctx.store import Store

from .protocol import OnFinish, Responder
from .transport import pack, unpack

MAX_BODY = 512 << 20


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


def check_bind(host: str, token: str | None) -> None:
    """Refuse to serve beyond loopback without a shared token."""
    if not is_loopback(host) and not token:
        raise SyncRefusedError(
            f"sync-serve on {host} would accept any machine: give a shared token "
            "(--token or REPOCTX_SYNC_TOKEN), or bind 127.0.0.1")


class SyncServer(HTTPServer):
    """An HTTP server answering sync requests from one store."""

    def __init__(self, store: Store, host: str = "127.0.0.1", port: int = 0, *,
                 token: str | None = None, on_finish: OnFinish | None = None) -> None:
        check_bind(host, token)
        self.responder = Responder(store, on_finish)
        self.token = token
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, port), _Handler)

    @property
    def port(self) -> int:
        """The port actually bound (useful with port 0)."""
        return self.server_address[1]


class _Handler(BaseHTTPRequestHandler):
    server: SyncServer

    def do_POST(self) -> None:  # noqa: N802 - the name http.server dispatches to
        """Answer one sync request."""
        status, body = self._answer()
        data = pack(body)
        self.send_response(status)
        self.send_header("Content-Type", "application/msgpack")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _answer(self) -> tuple[int, dict[str, Any]]:
        token = self.server.token
        if token and not hmac.compare_digest(self.headers.get("Authorization", ""),
                                             f"Bearer {token}"):
            return 401, {"error": "token", "message": "a valid sync token is required"}
        if not self.path.startswith("/v1/"):
            return 404, {"error": "path", "message": f"no sync endpoint {self.path}"}
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            return 413, {"error": "size", "message": f"a request is at most {MAX_BODY} bytes"}
        try:
            body = unpack(self.rfile.read(length)) if length else {}
            return 200, self.server.responder.handle(self.path[4:], body)
        except SyncRefusedError as exc:
            return 403, {"error": "refused", "message": str(exc)}
        except RepoctxError as exc:
            return 400, {"error": type(exc).__name__, "message": str(exc)}

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - base signature
        """Quiet: the CLI reports exchanges itself."""
