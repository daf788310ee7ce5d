"""Hostile lines to a real ``repoctx serve`` over stdio: each answered with its JSON-RPC
error within a bound, and the server keeps serving (raw lines, since the SDK's client
sends only well-formed messages)."""

import json
import queue
import subprocess
import sys
import threading
import time

import pytest

from tests.reconcile.helpers import write

BOUND = 5.0  # generous for a loaded machine; the answers take well under a second
PROTOCOL = "2025-06-18"


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("guard") / "repo"
    write(root, {"app.py": "def save(model):\n    return model\n",
                 "docs/guide.md": "# Guide\n\nCall save to persist a model.\n"})
    subprocess.run([sys.executable, "-m", "repoctx", "index", str(root)], check=True,
                   capture_output=True)
    return root


class RawClient:
    """A ``repoctx serve`` process spoken to in raw JSON-RPC lines."""

    def __init__(self, root):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "repoctx", "serve", "--repo", str(root)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.answers: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}})
        assert "result" in self.answer(30.0), "initialize"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self):
        for line in self.proc.stdout:
            self.answers.put(json.loads(line))

    def send(self, message):
        self.send_line(json.dumps(message).encode())

    def send_line(self, line: bytes):
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def answer(self, timeout=BOUND):
        return self.answers.get(timeout=timeout)

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):  # a server that hangs is stopped
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def client(repo):
    raw = RawClient(repo)
    yield raw
    raw.close()


def call(ident, name, arguments):
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


def call_line(ident, arguments_json: bytes, name="repocontext_search") -> bytes:
    head = json.dumps(call(ident, name, {}))[:-4].encode()  # up to "arguments":
    return head + arguments_json + b"}}"


def answered_after(client, line):
    start = time.perf_counter()
    client.send_line(line)
    answer = client.answer()
    return answer, time.perf_counter() - start


def assert_still_serving(client, ident=99):
    client.send(call(ident, "repocontext_search", {"query": "save a model"}))
    answer = client.answer()
    assert answer["id"] == ident and answer["result"]["isError"] is False


@pytest.mark.parametrize(("what", "arguments", "code", "says"), [
    ("nested 100000 deep", b'{"query": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
     -32602, "nested too deep"),
    ("lone surrogate", b'{"query": "\\ud800"}', -32700, "surrogate"),
])
def test_nesting_and_lone_surrogates_are_answered_at_once(client, what, arguments, code,
                                                          says):
    answer, seconds = answered_after(client, call_line(1, arguments))
    print(f"{what}: answered in {seconds:.3f} s")
    assert answer["id"] == 1 and answer["error"]["code"] == code
    assert says in answer["error"]["message"]
    assert seconds < BOUND
    assert_still_serving(client)


def test_bytes_that_are_not_json_are_a_parse_error(client):
    answer, _ = answered_after(client, b'{"jsonrpc": "2.0", "id": 3, "method": ')
    assert answer["id"] == 3 and answer["error"]["code"] == -32700
    answer, _ = answered_after(client, call_line(4, b'{"query": "\xff\xfe"}'))
    assert answer["id"] == 4 and answer["error"]["code"] == -32700
    assert_still_serving(client)


@pytest.mark.parametrize("path", ["a", "src/flask/app.py"])
def test_two_million_paths_are_refused_at_once(client, path):
    line = json.dumps(call(5, "repocontext_search",
                           {"query": "save", "paths": [path] * 2_000_000})).encode()
    answer, seconds = answered_after(client, line)
    print(f"2M-item paths of {path!r} ({len(line)} bytes): answered in {seconds:.3f} s")
    assert answer["id"] == 5 and answer["error"]["code"] == -32602
    assert seconds < BOUND
    assert_still_serving(client)


def test_more_values_than_the_bound_are_invalid_params(client):
    line = json.dumps(call(6, "repocontext_search", {"query": "x", "paths": [1] * 30_000}))
    answer, _ = answered_after(client, line.encode())
    assert answer["id"] == 6 and answer["error"]["code"] == -32602
    assert "too big" in answer["error"]["message"]
    assert_still_serving(client)


def test_paths_over_max_items_are_a_tool_error_naming_the_bound(client):
    client.send(call(7, "repocontext_search", {"query": "save", "paths": ["app.py"] * 5000}))
    answer = client.answer()
    assert answer["id"] == 7 and answer["result"]["isError"] is True
    message = json.loads(answer["result"]["content"][0]["text"])["error"]["message"]
    assert message == "paths: at most 50 entries (got 5000)"


def test_six_oversized_calls_at_once_do_not_stall_a_normal_call(client):
    big = json.dumps(call(0, "repocontext_search",
                          {"query": "save", "paths": ["src/flask/app.py"] * 2_000_000}))
    start = time.perf_counter()
    for ident in range(10, 16):
        client.send_line(big.replace('"id": 0', f'"id": {ident}', 1).encode())
    sent = time.perf_counter()  # the pipe holds at most its buffer of what was written
    client.send(call(20, "repocontext_search", {"query": "save a model"}))
    answers = {}
    while 20 not in answers:
        answer = client.answer()
        answers[answer["id"]] = answer
    end = time.perf_counter()
    print(f"six 2M-item calls ({6 * len(big)} bytes) sent in {sent - start:.3f} s; "
          f"the normal call after them answered in {end - sent:.3f} s")
    assert answers[20]["result"]["isError"] is False
    assert all(answers[i]["error"]["code"] == -32602 for i in range(10, 16))
    assert end - sent < BOUND
