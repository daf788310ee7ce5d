"""Messages on the wire and the in-process transport."""

from __future__ import annotations

import socket
import threading

import pytest

from repoctx.errors import SyncError
from repoctx.sync import LocalTransport, Responder
from repoctx.sync.transport import HttpTransport, pack, unpack

from .helpers import new_store


def test_messages_round_trip_with_bytes_and_int_keys():
    body = {"buckets": {"t": {7: b"\x00" * 16}}, "records": [["t", "k", b"v"]]}
    assert unpack(pack(body)) == body
    with pytest.raises(SyncError, match="not a sync message"):
        unpack(b"\xc1")


def test_the_local_transport_counts_bytes_both_ways(tmp_path):
    t = LocalTransport(Responder(new_store(tmp_path / "b", "rb")), "b")
    answer = t.call("hello", {})
    assert answer["replicaId"] == "rb" and t.sent_bytes > 0 and t.received_bytes > 100
    t.close()


def test_only_http_and_https_urls_are_peers():
    with pytest.raises(SyncError, match=r"http\(s\)://HOST:PORT"):
        HttpTransport("ftp://example.org")
    HttpTransport("https://127.0.0.1:9").close()


def test_a_plain_text_refusal_is_reported_with_its_status(tmp_path):
    """uvicorn itself answers some refusals (503 at the connection limit) in plain text."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)

        def answer() -> None:
            conn, _ = listener.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 19\r\n"
                             b"connection: close\r\n\r\nService Unavailable")

        thread = threading.Thread(target=answer, daemon=True)
        thread.start()
        transport = HttpTransport(f"http://127.0.0.1:{listener.getsockname()[1]}")
        with pytest.raises(SyncError, match="HTTP 503: Service Unavailable"):
            transport.call("hello", {})
        thread.join(10)
