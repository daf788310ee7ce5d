"""``sync-serve``: HTTP exchanges, tokens, loopback by default, refusals as messages."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from repoctx import FORMAT_VERSION
from repoctx.errors import PeerUnavailableError, SyncError, SyncRefusedError
from repoctx.sync import HttpTransport, SyncServer, Timeouts, check_bind, parse_bind, sync
from tests.conftest import lww_record

from .helpers import new_store, raw_trees


@pytest.fixture
def serving(tmp_path):
    servers = []

    def start(store, **kw):
        server = SyncServer(store, "127.0.0.1", 0, **kw)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.port}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_two_stores_converge_over_http(tmp_path, serving):
    a, b = new_store(tmp_path / "a", "ra"), new_store(tmp_path / "b", "rb")
    a.merge(a.key("mem", "x"), lww_record(a, body="a"))
    b.merge(b.key("mem", "y"), lww_record(b, body="b"))
    refreshed = []
    url = serving(b, on_finish=lambda store, n: refreshed.append(n))
    report = sync(a, HttpTransport(url))
    assert (report.sent, report.received, report.merged_there) == (1, 1, 1)
    assert report.wire_bytes > report.bytes_sent + report.bytes_received
    assert refreshed == [1] and raw_trees(a) == raw_trees(b)
    again = sync(a, HttpTransport(url))
    assert again.sent == again.received == 0


def test_a_token_is_required_when_configured(tmp_path, serving):
    a, b = new_store(tmp_path / "a", "ra"), new_store(tmp_path / "b", "rb")
    url = serving(b, token="s3cret")
    with pytest.raises(SyncRefusedError, match="token"):
        sync(a, HttpTransport(url))
    with pytest.raises(SyncRefusedError, match="token"):
        sync(a, HttpTransport(url, token="wrong"))
    assert sync(a, HttpTransport(url, token="s3cret")).complete


def test_refusals_come_back_as_messages(tmp_path, serving):
    a, b = new_store(tmp_path / "a", "ra"), new_store(tmp_path / "b", "rb")
    with b.batch() as batch:
        batch.put_local("format", FORMAT_VERSION + 1)
    with pytest.raises(SyncRefusedError, match=f"store format {FORMAT_VERSION + 1}, newer than "
                                               f"format {FORMAT_VERSION}"):
        sync(a, HttpTransport(serving(b)))


STRONG = "Jd8-vQ2_xLm4Rt7pZk1Wc9"  # 22 URL-safe characters


def test_binding_beyond_loopback_needs_a_strong_token():
    check_bind("127.0.0.1", None)
    check_bind("::1", None)
    with pytest.raises(SyncRefusedError, match="shared token"):
        check_bind("0.0.0.0", None)
    check_bind("0.0.0.0", STRONG)
    for weak in ["t", " " * 30, "a" * 40, "ab" * 20, STRONG[:-1], STRONG[:10] + " " + STRONG,
                 STRONG + "\n"]:
        with pytest.raises(SyncRefusedError, match="token_urlsafe"):
            check_bind("0.0.0.0", weak)
    assert parse_bind("7411") == ("127.0.0.1", 7411)
    assert parse_bind("0.0.0.0:80") == ("0.0.0.0", 80)


def test_a_peer_that_is_gone_is_named(tmp_path):
    a = new_store(tmp_path / "a", "ra")
    with pytest.raises(PeerUnavailableError, match="went away"):
        sync(a, HttpTransport("http://127.0.0.1:9"))


def test_a_certificate_that_does_not_load_is_named_before_serving(tmp_path):
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate\n")
    with pytest.raises(SyncError, match="--tls-cert"):
        SyncServer(new_store(tmp_path / "a", "ra"), tls=(bad, bad))


def test_a_bind_that_fails_is_a_sync_error(tmp_path):
    store = new_store(tmp_path / "a", "ra")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        with pytest.raises(SyncError, match="cannot listen"):
            SyncServer(store, "127.0.0.1", taken.getsockname()[1])


def test_small_requests_do_not_wait_for_delayed_acks(tmp_path, serving):
    """Each answer is written as head then body: without TCP_NODELAY every request waited
    ~40 ms for the client's delayed ACK (40 requests: 1.7 s; with it: ~20 ms)."""
    transport = HttpTransport(serving(new_store(tmp_path / "b", "rb")))
    transport.call("finish", {})
    started = time.perf_counter()
    for _ in range(40):
        transport.call("finish", {})
    assert time.perf_counter() - started < 1.0


def test_a_kept_alive_connection_that_stalls_in_its_next_request_gets_408(tmp_path, serving):
    url = serving(new_store(tmp_path / "b", "rb"), timeouts=Timeouts(head_s=0.5))
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        request = b"POST /v1/finish HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
        sock.sendall(request)
        first = b""
        while not first.endswith(b"\x81\xa6merged\x00"):  # the whole answer, head and body
            first += sock.recv(4096)
        assert first.startswith(b"HTTP/1.1 200")
        sock.sendall(request[:20])  # the next request stops midway through its head
        assert sock.recv(4096).startswith(b"HTTP/1.1 408")
