"""The ``sync`` and ``sync-serve`` commands (attached to the main group by cli.py)."""

from __future__ import annotations

import contextlib
import json
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import click
import msgpack
import pytest
from click.testing import CliRunner

from repoctx import open_store
from repoctx.cli.sync import COMMANDS
from repoctx.trees import changelog
from tests.conftest import lww_record
from tests.damage import make_repo


def group() -> click.Group:
    @click.group()
    def main() -> None:
        """Test group."""

    for command in COMMANDS:
        main.add_command(command)
    return main


def test_every_command_has_help():
    for command in COMMANDS:
        assert command.help and len(command.help) > 10


def test_sync_with_a_directory_peer_reports_records_and_bytes(tmp_path):
    for name, replica in (("a", "ra"), ("b", "rb")):
        with open_store(tmp_path / name, repo_id="demo", replica_id=replica) as s:
            s.merge(s.key("mem", name), lww_record(s, body=name))
    runner = CliRunner()
    result = runner.invoke(group(), ["sync", "--repo", str(tmp_path / "a"), "--peer",
                                     str(tmp_path / "b"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)[0]
    assert (report["sent"], report["received"], report["complete"]) == (1, 1, True)
    text = runner.invoke(group(), ["sync", "--repo", str(tmp_path / "a"), "--peer",
                                   str(tmp_path / "b")])
    assert "sent 0 records" in text.output


def test_errors_are_one_line(tmp_path):
    open_store(tmp_path / "a", repo_id="demo").close()
    result = CliRunner().invoke(group(), ["sync", "--repo", str(tmp_path / "a"), "--peer",
                                          str(tmp_path / "nowhere")])
    assert result.exit_code == 1 and result.output.startswith("repoctx: no repoctx store")
    result = CliRunner().invoke(group(), ["sync", "--repo", str(tmp_path / "a")])
    assert result.exit_code == 2


def test_serving_beyond_loopback_without_a_token_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("REPOCTX_SYNC_TOKEN", raising=False)
    open_store(tmp_path / "a", repo_id="demo").close()
    result = CliRunner().invoke(group(), ["sync-serve", "--repo", str(tmp_path / "a"),
                                          "--bind", "0.0.0.0:0"])
    assert result.exit_code == 2 and "shared token" in result.output
    assert "token_urlsafe" in result.output


# --- a real `repoctx sync-serve` process, reached through sockets ---

MIB = 1 << 20


def _store(root: Path, replica: str, body: str) -> None:
    with open_store(root, repo_id="demo", replica_id=replica) as s:
        s.merge(s.key("mem", body), lww_record(s, body=body))


class Served:
    """A ``repoctx sync-serve`` subprocess on 127.0.0.1 and a free port it chose."""

    def __init__(self, root: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "repoctx", "sync-serve", "--repo", str(root), "--repo-id",
             "demo", "--bind", "127.0.0.1:0", *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        line = self._first_line(60)
        match = re.search(r"(https?)://127\.0\.0\.1:(\d+)", line)
        assert match, f"sync-serve did not start: {line!r}"
        self.url, self.port = match.group(0), int(match.group(2))

    def _first_line(self, timeout: float) -> str:
        ready, _, _ = select.select([self.proc.stderr], [], [], timeout)
        return self.proc.stderr.readline() if ready else ""

    def rss_mib(self, field: str = "VmRSS") -> float:
        """The server's resident memory now (or at its peak, with ``VmHWM``)."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(status.split(f"{field}:")[1].split()[0]) / 1024

    def stop(self) -> str:
        """SIGINT, then what the server wrote on stderr."""
        self.proc.send_signal(signal.SIGINT)
        try:
            _, err = self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err


def _sync(root: Path, url: str, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "repoctx", "sync", "--repo", str(root), "--repo-id", "demo",
         "--peer", url, "--json", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _answer(sock: socket.socket) -> bytes:
    """The status line the server answered on ``sock`` (b"" if it closed without one)."""
    sock.settimeout(20)
    try:
        return sock.recv(4096).split(b"\r\n", 1)[0]
    except OSError:
        return b""


def _connect(port: int, head: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    sock.sendall(head)
    return sock


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("served")
    _store(root / "a", "ra", "from-a")
    server = Served(root / "a", "--max-body", str(MIB), "--header-timeout", "2")
    yield server, root
    server.stop()


def test_a_half_sent_request_blocks_no_one_and_times_out(served):
    server, root = served
    stalled = _connect(server.port, b"POST /v1/hello HTTP/1.1\r\nHost: x\r\n")
    _store(root / "b", "rb", "from-b")
    started = time.monotonic()
    out, err = _sync(root / "b", server.url).communicate(timeout=120)
    assert json.loads(out)[0]["complete"] is True, err
    assert _answer(stalled) == b"HTTP/1.1 408 Request Timeout"
    assert time.monotonic() - started < 60
    stalled.close()


@pytest.mark.parametrize("length", [b"-1", b"abc", b"1e3", b"12, 13"])
def test_a_bad_content_length_is_a_400_even_with_a_streamed_body(served, length):
    server, _ = served
    before = server.rss_mib()
    sock = _connect(server.port, b"POST /v1/push HTTP/1.1\r\nHost: x\r\nContent-Length: "
                    + length + b"\r\n\r\n")
    with contextlib.suppress(OSError):  # the server may close while we still send
        for _ in range(16):
            sock.sendall(b"x" * MIB)
    assert _answer(sock) == b"HTTP/1.1 400 Bad Request"
    sock.close()
    assert server.rss_mib() - before < 32


def test_oversize_bodies_are_413_declared_or_streamed_without_buffering(served):
    server, _ = served
    before = server.rss_mib()
    declared = _connect(server.port, b"POST /v1/push HTTP/1.1\r\nHost: x\r\n"
                        b"Content-Length: 2000000000\r\n\r\n")
    assert _answer(declared) == b"HTTP/1.1 413 Request Entity Too Large"
    chunked = _connect(server.port, b"POST /v1/push HTTP/1.1\r\nHost: x\r\n"
                       b"Transfer-Encoding: chunked\r\n\r\n")
    sent = 0
    with contextlib.suppress(OSError):
        for _ in range(64):  # up to 64 MiB; the server stops reading after 1 MiB
            chunked.sendall(b"100000\r\n" + b"x" * MIB + b"\r\n")
            sent += 1
    assert _answer(chunked) == b"HTTP/1.1 413 Request Entity Too Large"
    assert sent < 64 and server.rss_mib() - before < 32


def test_two_concurrent_syncs_both_finish(served):
    server, root = served
    for name in ("c", "d"):
        _store(root / name, f"r{name}", f"from-{name}")
    clients = [_sync(root / name, server.url) for name in ("c", "d")]
    reports = [json.loads(p.communicate(timeout=120)[0])[0] for p in clients]
    assert all(r["complete"] for r in reports)
    with open_store(root / "a", repo_id="demo") as a, a.snapshot() as snap:
        assert {snap.get(a.key("mem", f"from-{n}")) is not None for n in "cd"} == {True}


def _post(port: int, op: str, body: bytes) -> tuple[int, dict]:
    """POST ``body`` to ``/v1/op``; the status and the decoded answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(f"POST /v1/{op} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}"
                     f"\r\n\r\n".encode() + body)
        data = b""
        while True:
            head, found, rest = data.partition(b"\r\n\r\n")
            length = re.search(rb"content-length: (\d+)", head, re.IGNORECASE)
            if found and length and len(rest) >= int(length.group(1)):
                break
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    return int(head.split()[1]), msgpack.unpackb(rest)


@pytest.mark.parametrize(("op", "body", "field"), [
    ("hello", {"protocol": 1, "format": float("inf")}, "format"),
    ("hello", {"protocol": 1, "format": 2 ** 63}, "format"),
    ("hello", {"replicaId": ["x"]}, "replicaId"),
    ("buckets", {"want": {"repo-context-memory": [2 ** 63]}}, "want"),
    ("entries", {"want": {"repo-context-memory": [-1]}}, "want"),
    ("entries", {"want": {"no-such-tree": [1]}}, "want"),
    ("segments", {"trees": "repo-context-memory"}, "trees"),
    ("fetch", {"want": {"repo-context-memory": [7]}}, "want"),
    ("push", {"records": [["repo-context-memory", "repo/demo/mem/x", "text"]]}, "records"),
    ("push", {"records": [["repo-context-memory", "repo/demo/mem/x"]]}, "records"),
])
def test_every_malformed_value_is_a_400_naming_its_field(served, op, body, field):
    status, answer = _post(served[0].port, op, msgpack.packb(body))
    assert status == 400 and answer["message"].startswith(field), answer


def test_a_push_for_another_repository_is_refused_and_writes_nothing(served, tmp_path):
    server, root = served
    with open_store(tmp_path / "evil", repo_id="evil", replica_id="re") as evil:
        evil.merge(evil.key("mem", "planted"), lww_record(evil, body="planted"))
        with evil.snapshot() as snap:
            raw = changelog.raw_get(snap, "repo-context-memory", b"repo/evil/mem/planted")
    with open_store(tmp_path / "good", repo_id="demo", replica_id="rg") as good:
        good.merge(good.key("mem", "honest"), lww_record(good, body="honest"))
        with good.snapshot() as snap:
            honest = changelog.raw_get(snap, "repo-context-memory", b"repo/demo/mem/honest")
    records = [["repo-context-memory", "repo/demo/mem/honest", honest],
               ["repo-context-memory", "repo/evil/mem/planted", raw]]
    status, answer = _post(server.port, "push", msgpack.packb({"records": records}))
    assert status == 403 and "evil" in answer["message"], answer
    with open_store(root / "a", repo_id="demo") as a, a.snapshot() as snap:
        assert changelog.raw_get(snap, "repo-context-memory", b"repo/evil/mem/planted") is None
        assert changelog.raw_get(snap, "repo-context-memory", b"repo/demo/mem/honest") is None


def test_the_server_never_printed_a_traceback(served):
    server, _ = served
    assert server.proc.poll() is None
    err = server.stop()
    assert "Traceback" not in err and server.proc.returncode == 0, err


def test_a_whitespace_token_off_loopback_is_a_usage_error_naming_how_to_make_one(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "repoctx", "sync-serve", "--repo", str(tmp_path),
         "--bind", "0.0.0.0:0", "--token", " " * 30], capture_output=True, text=True,
        timeout=60)
    assert result.returncode == 2 and "secrets.token_urlsafe" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / ".repoctx").exists()


def test_sync_over_tls_with_a_self_signed_certificate(tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    _store(tmp_path / "a", "ra", "from-a")
    _store(tmp_path / "b", "rb", "from-b")
    server = Served(tmp_path / "a", "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        assert server.url.startswith("https://")
        out, err = _sync(tmp_path / "b", server.url, "--tls-ca", str(cert)).communicate(
            timeout=120)
        assert json.loads(out)[0]["received"] == 1, err
        untrusted = _sync(tmp_path / "b", server.url).communicate(timeout=120)
        assert "--tls-ca" in untrusted[1] and "Traceback" not in untrusted[1]
    finally:
        assert "Traceback" not in server.stop()


def test_one_memory_line_edited_on_two_replicas_keeps_both_versions_after_sync(tmp_path):
    """`memory update` on two replicas, `sync`, `recall`."""
    from repoctx.cli import main

    runner, key = CliRunner(), "repo/demo/mem/t/p1"
    where = {r: ["--path", str(tmp_path / r), "--repo-id", "demo"] for r in "ab"}

    def run(*args: str) -> str:
        result = runner.invoke(main, list(args), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    def sync_ab() -> None:
        run("sync", "--repo", str(tmp_path / "b"), "--repo-id", "demo", "--peer",
            str(tmp_path / "a" / ".repoctx"))

    for r in "ab":  # memory lives beside an index
        (tmp_path / r).mkdir()
        run("index", str(tmp_path / r), "--repo-id", "demo")
    run("memory", "remember", "t", "--id", "p1", "--body", "intro\nSAME PARA version",
        *where["a"])
    sync_ab()
    for r, n in (("a", 3), ("b", 4)):
        run("memory", "update", key, "--body", f"intro\nSAME PARA r{n} version", *where[r])
    sync_ab()
    bodies = {json.loads(run("memory", "recall", key, *where[r]))["fields"]["body"]
              for r in "ab"}
    assert len(bodies) == 1
    assert bodies.pop() in ("intro\nSAME PARA r3 version\nSAME PARA r4 version",
                            "intro\nSAME PARA r4 version\nSAME PARA r3 version")


# --- one request's size never costs the server much, nor delays another peer ---


def _array32(n: int) -> bytes:
    return b"\xdd" + n.to_bytes(4, "big")


@pytest.fixture(scope="module")
def roomy(tmp_path_factory):
    """A server with the default 512 MiB body limit."""
    root = tmp_path_factory.mktemp("roomy")
    _store(root / "a", "ra", "from-a")
    server = Served(root / "a")
    yield server
    err = server.stop()
    assert "Traceback" not in err, err


@pytest.fixture(scope="module")
def big_fetch() -> bytes:
    """A fetch of 2.5M keys (62 MB): seconds of work for the server."""
    keys = [f"repo/demo/mem/k{i:09d}" for i in range(2_500_000)]
    return msgpack.packb({"want": {"repo-context-memory": keys}})


def test_an_8_mib_body_of_empty_arrays_is_refused_cheaply(roomy):
    n = 8 * MIB
    before = roomy.rss_mib("VmHWM")
    bodies = {"push": b"\x81\xa7records" + _array32(n) + b"\x90" * n,
              "fetch": b"\x81\xa4want\x81\xb2repo-context-memory" + _array32(n)
                       + b"\x90" * n,
              "hello": _array32(n) + b"\x90" * n,
              "entries": b"\x81\xa4want" + b"\xdf" + (1).to_bytes(4, "big")
                         + b"\xb2repo-context-memory" + _array32(n) + b"\x90" * n}
    for op, body in bodies.items():
        status, answer = _post(roomy.port, op, body)
        assert 400 <= status < 500, (op, status, answer)
    assert roomy.rss_mib("VmHWM") - before < 200  # the peak, not what is left after


def test_a_hello_during_a_large_fetch_answers_within_a_second(roomy, big_fetch):
    done: dict[str, float] = {}

    def fetch() -> None:
        done["status"] = _post(roomy.port, "fetch", big_fetch)[0]
        done["at"] = time.monotonic()

    import threading

    worker = threading.Thread(target=fetch)
    worker.start()
    waits, during = [], 0
    started = time.monotonic()
    while "at" not in done and time.monotonic() - started < 30 and len(waits) < 300:
        asked = time.monotonic()
        status, answer = _post(roomy.port, "hello", b"")
        assert status == 200 and answer["replicaId"] == "ra"
        waits.append(time.monotonic() - asked)
        during += "at" not in done
        time.sleep(0.05)
    worker.join(60)
    assert done["status"] == 200
    assert during >= 3, "the fetch ended too soon to overlap a hello"
    assert max(waits) < 1.0, waits


def test_a_request_past_its_deadline_is_a_504_and_frees_its_worker(tmp_path, big_fetch):
    _store(tmp_path / "a", "ra", "from-a")
    server = Served(tmp_path / "a", "--request-timeout", "0.2")
    try:
        started = time.monotonic()
        status, answer = _post(server.port, "fetch", big_fetch)
        assert status == 504 and "deadline" in answer["message"]
        assert time.monotonic() - started < 20
        for _ in range(8):  # more than the worker threads: none is still held
            assert _post(server.port, "hello", b"")[0] == 200
    finally:
        assert "Traceback" not in server.stop()


def test_a_replica_made_by_sync_answers_tools_and_checks_clean(tmp_path):
    origin = make_repo(tmp_path / "origin", packages=2, modules=2)
    assert _repoctx("index", str(origin)).returncode == 0
    replica = tmp_path / "replica"
    shutil.copytree(origin, replica, ignore=shutil.ignore_patterns(".repoctx"))
    synced = _repoctx("sync", "--repo", str(replica), "--repo-id", "origin", "--peer",
                      str(origin / ".repoctx"), "--json")
    assert synced.returncode == 0 and json.loads(synced.stdout)[0]["received"], synced.stderr
    checked = _repoctx("check", str(replica), "--json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    called = _repoctx("call", "repocontext_search", json.dumps({"query": "helper doubles"}),
                      "--path", str(replica))
    assert called.returncode == 0 and "no ContextPull export" not in called.stdout + \
        called.stderr, called.stdout + called.stderr
    assert "pkg0/mod0.py" in called.stdout


def _repoctx(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "repoctx", *args], capture_output=True,
                          text=True, timeout=300)
