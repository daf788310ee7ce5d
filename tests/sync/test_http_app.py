"""The ASGI app behind ``sync-serve``: checks before the body, strict lengths, body limits,
served over real sockets by an in-process ``SyncServer``."""

from __future__ import annotations

import re
import socket
import threading
import time

import pytest

from repoctx.errors import SyncRequestError
from repoctx.sync import Limits, SyncServer
from repoctx.sync.http_app import Turns, parse_length
from repoctx.sync.transport import unpack

from .helpers import new_store

TOKEN = "Jd8-vQ2_xLm4Rt7pZk1Wc9"


@pytest.fixture
def port(tmp_path):
    server = SyncServer(new_store(tmp_path / "a", "ra"), "127.0.0.1", 0, token=TOKEN,
                        limits=Limits(max_body=4096, body_idle_s=1.0, body_total_s=5,
                                      max_in_flight=6000))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.port
    server.shutdown()
    server.server_close()


def ask(port: int, request: bytes, then: bytes = b"") -> tuple[int, dict]:
    """Send ``request`` (and ``then`` after a pause); the status and msgpack answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(request)
        if then:
            time.sleep(0.1)
            sock.sendall(then)
        data = b""
        while not _complete(data):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), unpack(body)


def _complete(data: bytes) -> bool:
    """True once ``data`` holds a response head and all the body its length declares."""
    head, found, body = data.partition(b"\r\n\r\n")
    length = re.search(rb"content-length: (\d+)", head, re.IGNORECASE)
    return bool(found and length and len(body) >= int(length.group(1)))


def post(path: str, body_headers: str, auth: bool = True) -> bytes:
    token = f"Authorization: Bearer {TOKEN}\r\n" if auth else ""
    return f"POST {path} HTTP/1.1\r\nHost: x\r\n{token}{body_headers}\r\n".encode()


def test_a_request_without_the_token_is_401_before_its_body_is_read(port):
    status, answer = ask(port, post("/v1/push", "Content-Length: 100000000\r\n", auth=False))
    assert status == 401 and answer["error"] == "token"


def test_unknown_paths_are_404_and_a_good_request_is_answered(port):
    assert ask(port, post("/v2/hello", "Content-Length: 0\r\n"))[0] == 404
    status, answer = ask(port, post("/v1/hello", "Content-Length: 0\r\n"))
    assert status == 200 and answer["replicaId"] == "ra"


def test_a_body_over_the_limit_is_413_declared_or_chunked(port):
    assert ask(port, post("/v1/push", "Content-Length: 4097\r\n"))[0] == 413
    chunk = b"800\r\n" + b"x" * 2048 + b"\r\n"
    status, answer = ask(port, post("/v1/push", "Transfer-Encoding: chunked\r\n"), chunk * 3)
    assert status == 413 and "4096 bytes" in answer["message"]


def test_a_body_that_stalls_is_408(port):
    status, answer = ask(port, post("/v1/push", "Content-Length: 100\r\n"), b"x" * 10)
    assert status == 408 and answer["error"] == "timeout"


def test_a_body_that_is_not_a_message_is_400(port):
    status, answer = ask(port, post("/v1/push", "Content-Length: 3\r\n"), b"\xc1\xc1\xc1")
    assert status == 400 and "not a sync message" in answer["message"]


@pytest.mark.parametrize("value", [b"-1", b"abc", b"", b"1" * 20, b"+5", b"\xd9\xa3"])
def test_content_length_is_ascii_digits_only(value):
    with pytest.raises(SyncRequestError) as caught:
        parse_length(value)
    assert caught.value.status == 400
    assert parse_length(b"12") == 12 and parse_length(None) is None


def test_bodies_held_at_once_over_all_connections_are_bounded(port):
    chunk = b"%x\r\n%s\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=20) as first:
        first.sendall(post("/v1/push", "Transfer-Encoding: chunked\r\n")
                      + chunk % (3000, b"x" * 3000))
        time.sleep(0.2)
        status, answer = ask(port, post("/v1/push", "Transfer-Encoding: chunked\r\n"),
                             chunk % (3500, b"x" * 3500))
        assert status == 503 and answer["error"] == "busy"
        first.sendall(b"0\r\n\r\n")  # the first body ends: its bytes are let go
        assert first.recv(100).startswith(b"HTTP/1.1 400")  # (they were not a message)
    status, _ = ask(port, post("/v1/push", "Transfer-Encoding: chunked\r\n"),
                    chunk % (3500, b"x" * 3500) + b"0\r\n\r\n")
    assert status == 400


def test_a_writer_runs_alone_and_a_waiting_writer_holds_back_no_reader():
    turns, log = Turns(), []
    reading = threading.Event()
    release = threading.Event()

    def reader(name: str, hold: bool) -> None:
        with turns.shared():
            log.append(f"{name} in")
            reading.set()
            if hold:
                release.wait(10)
            log.append(f"{name} out")

    def writer() -> None:
        with turns.alone():
            log.append("write")

    first = threading.Thread(target=reader, args=("r1", True))
    first.start()
    reading.wait(10)
    write = threading.Thread(target=writer)
    write.start()
    time.sleep(0.1)
    second = threading.Thread(target=reader, args=("r2", False))
    second.start()
    second.join(10)  # not held back by the writer waiting for r1
    assert log == ["r1 in", "r2 in", "r2 out"]
    release.set()
    for thread in (first, write):
        thread.join(10)
    assert log[-2:] == ["r1 out", "write"]
