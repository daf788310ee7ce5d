"""The JetStream delta log against a real ``nats-server -js`` on loopback."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time

import pytest

from repoctx import FORMAT_VERSION
from repoctx.crdt import record, wall_ms
from repoctx.sync import nats_log
from repoctx.sync.nats_log import NatsLog, replicate, subject, subject_token
from tests.conftest import lww_record

from .helpers import new_store, raw_trees, remember, session_write, untag

NATS = shutil.which("nats-server") or shutil.which("nats-server", path="/usr/sbin:/usr/local/sbin")
pytest.importorskip("nats", reason="nats-py is not installed: pip install 'repoctx[nats]'")
if NATS is None:
    pytest.skip("nats-server is not installed (apt-get install -y nats-server)",
                allow_module_level=True)


@pytest.fixture
def nats_url(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([NATS, "-js", "-a", "127.0.0.1", "-p", str(port),
                             "-sd", str(tmp_path / "js")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    else:
        proc.kill()
        pytest.skip("nats-server did not start")
    yield f"nats://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=10)


def test_subject_tokens_are_injective_and_nats_safe():
    assert subject("github.com-acme", "r.1") == "repoctx.github~2ecom-acme.r~2e1"
    assert subject_token("a~b") != subject_token("a.b")


def test_replicas_converge_through_jetstream(tmp_path, nats_url):
    stores = [new_store(tmp_path / n, f"r{n}") for n in "abc"]
    a, b, c = stores
    key = a.key("mem", "note")
    remember(a, key, "from a", {"bug"})
    remember(b, key, "from b", {"idea"})
    session_write(c, c.key("session", "s"), "x.py", wall_ms() + 60_000)
    for _ in range(2):  # the second round carries the merges' echoes and then is quiet
        for s in stores:
            replicate(s, nats_url, timeout_s=0.3)
    untag(c, key, {"bug"})
    for _ in range(2):
        for s in stores:
            replicate(s, nats_url, timeout_s=0.3)
    assert raw_trees(a) == raw_trees(b) == raw_trees(c)
    assert record.value(a.get(key))["tags"] == {"idea"}


def test_a_consumer_killed_midway_loses_nothing_and_doubles_nothing(tmp_path, nats_url):
    a, b = new_store(tmp_path / "a", "ra"), new_store(tmp_path / "b", "rb")
    for n in range(6):
        with a.batch() as batch:
            for i in range(300):
                batch.merge(a.key("mem", f"m{n}-{i}"), lww_record(a, body=i))
    nats_log.BATCH_RECORDS = 100

    async def scenario():
        pub = NatsLog(a, nats_url)
        await pub.connect()
        published, messages = await pub.publish()
        assert published == 1800 and messages == 18
        await pub.close()
        first = NatsLog(b, nats_url, ack_wait_s=1.0)
        await first.connect()
        got = await first.consume(max_messages=5)  # merged and acknowledged
        assert got.consumed == 5
        got = await first.consume(max_messages=3, ack=False)  # merged, killed before the ack
        assert got.consumed == 3
        await first.close()  # the consumer dies here
        await asyncio.sleep(1.2)  # past ack_wait: the 3 unacknowledged come back
        second = NatsLog(b, nats_url, ack_wait_s=1.0)
        await second.connect()
        rest = await second.consume(timeout_s=0.5)
        await second.close()
        return rest

    try:
        rest = asyncio.run(scenario())
    finally:
        nats_log.BATCH_RECORDS = 500
    assert rest.consumed == 13  # 3 redelivered + 10 never delivered; none of the 5 acked
    assert rest.received.merged == 1000  # the redelivered 300 changed nothing
    assert raw_trees(a)["repo-context-memory"] == raw_trees(b)["repo-context-memory"]


def test_a_message_of_a_newer_format_or_another_repo_is_refused(tmp_path, nats_url):
    a = new_store(tmp_path / "a", "ra")
    log = NatsLog(a, nats_url)
    with pytest.raises(Exception, match=f"format 99, newer than format {FORMAT_VERSION}"):
        log._merge({"format": 99, "replicaId": "rx", "repoId": "demo", "records": []})
    with pytest.raises(Exception, match="repository other"):
        log._merge({"format": 1, "replicaId": "rx", "repoId": "other", "records": []})
