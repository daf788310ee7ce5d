"""server/live through a real MCP client over stdio: a watching ``repoctx serve`` serves
what was just written, batches a storm, and dies like a killed ``repoctx index``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from repoctx.reconcile import is_locked, read_status
from repoctx.server import PassDone, Target
from tests.reconcile.helpers import write
from tests.server.test_mcp_server import payload

SEEN_WITHIN = 2.0
"""The issue's bound for a save to be searchable; polls give up at five times it."""


def repoctx(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "repoctx", *args], capture_output=True,
                          text=True, timeout=300)


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    write(root, {"app.py": "def save(model):\n    return model\n", ".gitignore": "out/\n"})
    assert repoctx("index", str(root)).returncode == 0
    return root


async def serving(root: Path, body, *extra: str, log: Path, command: list[str] | None = None):
    params = StdioServerParameters(
        command=(command or [sys.executable])[0],
        args=[*(command or [sys.executable])[1:], "-m", "repoctx", "serve", "--repo",
              str(root), *extra])
    with log.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write_), \
                ClientSession(read, write_) as session:
            await session.initialize()
            return await body(session)


async def symbol_hits(session, name: str) -> list[str]:
    answer = payload(await session.call_tool("repocontext_symbols", {"query": name}))
    return [h["symbol"] for h in answer["hits"] if h["symbol"].endswith(name)]


async def until(check, limit: float = SEEN_WITHIN * 5) -> float:
    """Seconds until ``await check()`` is true (fails past ``limit``)."""
    started = time.monotonic()
    while not await check():
        assert time.monotonic() - started < limit, "not seen in time"
        await anyio.sleep(0.05)
    return time.monotonic() - started


def pass_lines(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if line.startswith("repoctx: pass")]


def test_a_new_function_is_found_then_gone_after_its_file_is_deleted(repo, tmp_path):
    async def body(session):
        await until(lambda: _caught_up(tmp_path / "serve.log"))
        write(repo, {"pkg/fresh.py": "def brand_new_helper(x):\n    return x * 2\n"})
        seen = await until(lambda: _has(session, "brand_new_helper"))
        (repo / "pkg" / "fresh.py").unlink()
        gone = await until(lambda: _has(session, "brand_new_helper", False))
        status = payload(await session.call_tool("repocontext_index_status", {}))
        search = payload(await session.call_tool("repocontext_search", {"query": "save"}))
        return seen, gone, status, search

    seen, gone, status, search = anyio.run(
        lambda: serving(repo, body, log=tmp_path / "serve.log"))
    print(f"searchable after {seen:.2f}s, gone after {gone:.2f}s")
    assert status["status"] in ("ready", "indexing") and status["ageSeconds"] < 60
    assert 0 <= search["indexAgeSeconds"] < 60
    lines = pass_lines(tmp_path / "serve.log")
    assert lines[0].startswith("repoctx: pass 1 (catching up)") and len(lines) >= 3


async def _caught_up(log: Path) -> bool:
    return bool(pass_lines(log))


async def _has(session, name: str, present: bool = True) -> bool:
    return bool(await symbol_hits(session, name)) is present


def test_ignored_paths_and_the_stores_own_writes_start_no_pass(repo, tmp_path):
    log = tmp_path / "serve.log"

    async def body(session):
        await until(lambda: _caught_up(log))
        write(repo, {"out/skip.py": "def hidden_thing():\n    pass\n"})
        for i in range(5):  # each call writes a session record into the store
            await session.call_tool("repocontext_context", {"task": "save", "session": f"s{i}"})
        await anyio.sleep(1.0)
        return await symbol_hits(session, "hidden_thing")

    assert anyio.run(lambda: serving(repo, body, log=log)) == []
    assert len(pass_lines(log)) == 1  # the catch-up alone


def test_no_watch_serves_the_index_as_it_was(repo, tmp_path):
    async def body(session):
        write(repo, {"late.py": "def arrived_late():\n    pass\n"})
        await anyio.sleep(1.5)
        return await symbol_hits(session, "arrived_late")

    assert anyio.run(lambda: serving(repo, body, "--no-watch", log=tmp_path / "s.log")) == []
    assert pass_lines(tmp_path / "s.log") == []


def storm(root: Path, files: int) -> None:
    for i in range(files):
        path = root / "storm" / f"d{i % 40}" / f"m{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"def storm_{i}():\n    return {i}\n")


def test_a_2000_file_storm_is_one_or_two_passes_and_a_sound_store(repo, tmp_path):
    log = tmp_path / "serve.log"

    async def body(session):
        await until(lambda: _caught_up(log))
        storm(repo, 2000)
        await until(lambda: _has(session, "storm_1999"), limit=240)  # the pass is real work
        await until(lambda: _passes_done(log, 1), limit=60)
        await anyio.sleep(0.5)  # any pass still to come has started
        await until(lambda: _idle(repo), limit=240)
        return payload(await session.call_tool("repocontext_index_status", {}))

    status = anyio.run(lambda: serving(repo, body, log=log))
    storm_passes = pass_lines(log)[1:]
    print("\n".join(storm_passes))
    assert 1 <= len(storm_passes) <= 2
    assert status["files"] == 2002  # app.py, .gitignore and the storm
    checked = repoctx("check", str(repo))
    assert checked.returncode == 0, checked.stdout + checked.stderr


async def _passes_done(log: Path, after_catch_up: int) -> bool:
    return len(pass_lines(log)) >= 1 + after_catch_up


async def _idle(root: Path) -> bool:
    return not is_locked(root / ".repoctx")


def test_killing_the_server_mid_pass_kills_the_pass_and_the_next_index_heals(repo, tmp_path):
    log = tmp_path / "serve.log"
    server = subprocess.Popen([sys.executable, "-m", "repoctx", "serve", "--repo", str(repo)],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=log.open("w"))
    try:
        deadline = time.monotonic() + 60
        while not pass_lines(log):  # the catch-up pass: the watcher is up
            assert time.monotonic() < deadline and server.poll() is None, log.read_text()
            time.sleep(0.05)
        storm(repo, 2000)
        store = repo / ".repoctx"
        while not (is_locked(store) and read_status(store).get("phase") == "project"):
            assert time.monotonic() < deadline, "no pass started"
            time.sleep(0.01)
        indexer = int((store / "index.lock").read_text())
        server.send_signal(signal.SIGKILL)
        server.wait(30)
    finally:
        if server.poll() is None:
            server.kill()
    _gone_within(indexer, 10)  # died with the server, not left to finish
    assert read_status(store)["status"] == "indexing"  # as a SIGKILLed index leaves it
    healed = repoctx("index", str(repo), "--json")
    assert healed.returncode == 0, healed.stderr
    assert json.loads(healed.stdout)["scanned"] == 2002
    assert repoctx("check", str(repo)).returncode == 0
    found = repoctx("call", "repocontext_symbols", '{"query": "storm_1999"}', "--repo", str(repo))
    assert "storm_1999" in found.stdout


def _gone_within(pid: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        assert time.monotonic() < deadline, f"the indexer {pid} outlived the server"
        time.sleep(0.05)


def test_pass_lines_and_json_say_what_a_pass_did():
    report = {"added": 1, "changed": 2, "removed": 0,
              "export": {"path": "x", "unchanged": False, "documents": 3, "sections": 4}}
    done = PassDone(4, 7, 0.25, report)
    assert done.line() == ("pass 4 (7 changed paths): 1 added, 2 changed, 0 removed; "
                           "export 3 documents; 0.25s")
    assert done.as_json() == {"pass": 4, "changes": 7, "ok": True, "seconds": 0.25,
                              "added": 1, "changed": 2, "removed": 0,
                              "export": report["export"], "error": None}
    failed = PassDone(5, 0, 1.0, None, "the store is damaged")
    assert failed.line() == "pass 5 (catching up): failed: the store is damaged"
    assert failed.as_json()["ok"] is False


def test_the_target_asks_for_its_store_and_repo_id(tmp_path):
    target = Target(tmp_path, tmp_path / "s", "demo")
    assert json.loads(target.request()) == {"root": str(tmp_path.resolve()),
                                            "store": str((tmp_path / "s").resolve()),
                                            "repoId": "demo"}
    assert target.store == (tmp_path / "s").resolve() and not target.indexed()
