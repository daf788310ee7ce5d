"""sync/transport — how requests reach a peer: in-process, or HTTP with msgpack bodies.

Every transport moves the same msgpack maps (``pack``/``unpack``) and counts the bytes
it sends and receives, so a directory peer and a network peer report alike.
``LocalTransport`` hands requests to a ``Responder`` over another store opened in
this process; ``HttpTransport`` POSTs them to ``/v1/{op}`` of a ``sync-serve`` server
with a bearer token when one is configured. A peer that cannot be reached or goes
away midway raises ``PeerUnavailableError``; a refusal comes back as
``SyncRefusedError`` with the server's message.
"""

from __future__ import annotations

import http.client
import ssl
import urllib.parse
from typing import TYPE_CHECKING, Any, Protocol

import msgpack

from repoctx.errors import PeerUnavailableError, SyncError, SyncRefusedError

if TYPE_CHECKING:
    from .protocol import Responder

TIMEOUT_S = 120.0


def pack(body: Any) -> bytes:
    """A message body on the wire."""
    return msgpack.packb(body, use_bin_type=True)


def unpack(data: bytes | bytearray) -> Any:
    """Inverse of ``pack``; raises ``SyncError`` for bytes that are not a message."""
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=False)
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError,
            msgpack.StackError) as exc:
        raise SyncError(f"not a sync message: {exc}") from exc


class Transport(Protocol):
    """A way to send requests to one peer."""

    where: str
    sent_bytes: int
    received_bytes: int

    def call(self, op: str, body: dict[str, Any]) -> dict[str, Any]:
        """Send one request and return the response."""

    def close(self) -> None:
        """Release the connection (or the peer store)."""


class LocalTransport:
    """Requests answered in-process by a ``Responder`` (a peer directory on this machine)."""

    def __init__(self, responder: Responder, where: str, *, closing: bool = True) -> None:
        self.responder, self.where, self._closing = responder, where, closing
        self.sent_bytes = self.received_bytes = 0

    def call(self, op: str, body: dict[str, Any]) -> dict[str, Any]:
        """Answer ``op`` through the responder, counting the bytes as if sent."""
        request = pack(body)
        self.sent_bytes += len(request)
        response = pack(self.responder.handle(op, unpack(request)))
        self.received_bytes += len(response)
        return unpack(response)

    def close(self) -> None:
        """Close the peer store (when this transport opened it)."""
        if self._closing:
            self.responder.store.close()


class HttpTransport:
    """Requests POSTed to a ``repoctx sync-serve`` server (``https`` checks its certificate
    against the system's authorities, or against ``cafile``)."""

    def __init__(self, url: str, token: str | None = None, timeout: float = TIMEOUT_S, *,
                 cafile: str | None = None) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SyncError(f"a sync peer URL is http(s)://HOST:PORT, not {url!r}")
        self.where, self._token = url, token
        if parts.scheme == "https":
            try:
                context = ssl.create_default_context(cafile=cafile)
            except OSError as exc:
                raise SyncError(f"cannot read the certificate authority {cafile}: "
                                f"{exc.strerror or exc}") from None
            self._conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                parts.hostname, parts.port or 443, timeout=timeout, context=context)
        else:
            self._conn = http.client.HTTPConnection(parts.hostname, parts.port or 80,
                                                    timeout=timeout)
        self._base = parts.path.rstrip("/")
        self.sent_bytes = self.received_bytes = 0

    def call(self, op: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST one request; translate the server's refusals and connection failures."""
        request = pack(body)
        headers = {"Content-Type": "application/msgpack"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        try:
            self._conn.request("POST", f"{self._base}/v1/{op}", body=request, headers=headers)
            response = self._conn.getresponse()
            data = response.read()
        except ssl.SSLCertVerificationError as exc:
            self._conn.close()
            raise SyncRefusedError(
                f"peer {self.where} has a TLS certificate this machine does not trust "
                f"({exc.verify_message}); give its certificate with --tls-ca FILE") from exc
        except (OSError, http.client.HTTPException) as exc:
            self._conn.close()
            raise PeerUnavailableError(f"peer {self.where} went away during {op}: {exc}") from exc
        self.sent_bytes += len(request)
        self.received_bytes += len(data)
        if response.status == 200:
            return unpack(data)
        message = _error_message(response.status, data)
        if response.status in (401, 403):
            raise SyncRefusedError(f"peer {self.where} refused: {message}")
        raise SyncError(f"peer {self.where} failed {op}: {message}")

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()


def _error_message(status: int, data: bytes) -> str:
    """What a refusal says: its msgpack ``message``, else the start of its text."""
    try:
        answer = unpack(data)
    except SyncError:  # the HTTP layer answered (plain text), not the sync server
        text = data[:200].decode("utf-8", "replace").strip()
        return f"HTTP {status}" + (f": {text}" if text else "")
    if isinstance(answer, dict) and isinstance(answer.get("message"), str):
        return answer["message"]
    return f"HTTP {status}"
