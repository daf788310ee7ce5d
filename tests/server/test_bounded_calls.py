"""server/bounded_calls: one call never stalls another, runs past no deadline, and stops
when its client leaves — through ``repoctx serve`` over stdio."""

import json
import os
import subprocess
import sys
import time

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from repoctx.deadline import CALL_SECONDS_ENV
from repoctx.retrieval import open_workspace
from repoctx.server.bounded_calls import BoundedCalls
from repoctx.tools.registry import call
from tests.reconcile.helpers import write

# 4,800 sections on which ``(a|a)+b`` backtracks for ~0.0025 s each: a whole grep of them
# takes ~12 s unloaded, far past the call's deadline, yet no single section comes near the
# 0.25 s per-section bound, even with the other expensive calls holding the GIL (at
# 0.012 s a section, one crossed it).
SLOW_GREP = {"pattern": "(a|a)+b", "regex": True, "limit": 100}
SECTIONS = 4800
DEADLINE_S = 4.0
"""Under grep's own 5 s bound, so the caller's deadline is the one that stops the slow grep;
5x what the huge search and the pasted issues take unloaded (~0.5 s), so they are
answered in time with two busy processes beside the server."""
HUGE_QUERY = " ".join(f"word{i} flask request" for i in range(120_000))  # ~2.4 MB


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("bounded") / "repo"
    runs = "".join(f"## part {i:04} of the runs\n\n{'a' * 13} {'a' * 12}\n\n"
                   for i in range(SECTIONS))  # over 40 characters each: never merged
    write(root, {"app.py": "def request():\n    return 'flask request'\n",
                 "docs/runs.md": "# Runs\n\n" + runs})
    subprocess.run([sys.executable, "-m", "repoctx", "index", str(root)], check=True,
                   capture_output=True)
    return root


def serve_params(root):
    env = {**os.environ, CALL_SECONDS_ENV: str(DEADLINE_S)}
    return StdioServerParameters(command=sys.executable, env=env,
                                 args=["-m", "repoctx", "serve", "--repo", str(root)])


def payload(result):
    return json.loads(result.content[0].text)


def test_expensive_calls_neither_stall_a_cheap_one_nor_run_past_the_deadline(repo):
    done: dict[str, tuple[float, object]] = {}

    async def timed(session, key, tool, args, start):
        result = await session.call_tool(tool, args)
        done[key] = (time.monotonic() - start, result)

    async def body():
        async with stdio_client(serve_params(repo)) as (read, write_), \
                ClientSession(read, write_) as session:
            await session.initialize()
            start = time.monotonic()
            async with anyio.create_task_group() as tg:
                tg.start_soon(timed, session, "slow", "grep", SLOW_GREP, start)
                await anyio.sleep(0.3)  # the slow grep is running by now
                await timed(session, "cheap", "index", {}, time.monotonic())
            # apart from the slow grep: their parsing holds the GIL long enough to push one
            # of its sections past the per-section bound, which would end it early
            start = time.monotonic()
            async with anyio.create_task_group() as tg:
                tg.start_soon(timed, session, "huge", "search", {"query": HUGE_QUERY}, start)
                tg.start_soon(timed, session, "bomb", "grep",
                              {"pattern": "a{99999999}", "regex": True}, start)

    anyio.run(body)
    cheap_s, cheap = done["cheap"]
    assert cheap.is_error is False and "docs/runs.md" in payload(cheap)["text"]
    slow_s, slow = done["slow"]
    # sent 0.3 s after the slow grep, answered before it: not queued behind it
    assert 0.3 + cheap_s < slow_s, f"a cheap call waited {cheap_s:.1f}s behind expensive ones"
    assert slow.is_error is True and slow_s >= DEADLINE_S
    assert f"took longer than {DEADLINE_S:g} s" in payload(slow)["error"]["message"]
    assert slow_s < DEADLINE_S * 5
    huge_s, huge = done["huge"]
    assert huge.is_error is False and payload(huge)["hits"] and huge_s < DEADLINE_S * 5
    assert "long query" in payload(huge)["hint"]
    bomb_s, bomb = done["bomb"]
    assert bomb.is_error is True and "at most 1000" in payload(bomb)["error"]["message"]
    assert bomb_s < DEADLINE_S * 5


def rpc(proc, message):
    proc.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
    proc.stdin.flush()


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(repo):
    """``repoctx serve`` spoken to in raw JSON-RPC lines, initialised, no deadline in reach."""
    env = {**os.environ, CALL_SECONDS_ENV: "60"}  # only the client can stop a call early
    proc = subprocess.Popen([sys.executable, "-m", "repoctx", "serve", "--repo", str(repo)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    rpc(proc, {"id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}})
    assert json.loads(proc.stdout.readline())["id"] == 1
    rpc(proc, {"method": "notifications/initialized"})
    return proc


def server_running_slow_grep(repo):
    """``start_server`` one second into the slow grep, sent as request 2; and when it was sent."""
    proc = start_server(repo)
    sent = time.monotonic()
    rpc(proc, {"id": 2, "method": "tools/call",
               "params": {"name": "grep", "arguments": SLOW_GREP}})
    time.sleep(1.0)
    return proc, sent


def test_a_cancelled_request_stops_its_work(repo):
    proc, _ = server_running_slow_grep(repo)
    try:
        rpc(proc, {"method": "notifications/cancelled",
                   "params": {"requestId": 2, "reason": "no longer needed"}})
        time.sleep(0.5)
        before = cpu_seconds(proc.pid)
        time.sleep(1.5)
        spent = cpu_seconds(proc.pid) - before
        rpc(proc, {"id": 3, "method": "tools/call", "params": {"name": "index", "arguments": {}}})
        answer = json.loads(proc.stdout.readline())
    finally:
        proc.kill()
        proc.wait()
    # unstopped, the grep would keep a core busy until its own 5 s bound
    assert spent < 0.5, f"the cancelled grep went on using {spent:.2f}s CPU in 1.5 s"
    assert answer["id"] == 3 and not answer["result"].get("isError")


def wait_with_cpu(proc, within):
    """Reap ``proc`` (waiting at most ``within`` seconds): its exit code and CPU seconds."""
    give_up = time.monotonic() + within
    while time.monotonic() < give_up:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, usage.ru_utime + usage.ru_stime
        time.sleep(0.02)
    raise subprocess.TimeoutExpired(proc.args, within)


def test_work_stops_when_the_client_goes_away(repo):
    proc, _ = server_running_slow_grep(repo)
    try:
        busy = cpu_seconds(proc.pid)
        proc.stdin.close()  # the client leaves mid-call
        code, total = wait_with_cpu(proc, within=10)
    finally:
        if proc.poll() is None:
            idle_check = cpu_seconds(proc.pid)
            time.sleep(2)
            spent = cpu_seconds(proc.pid) - idle_check
            proc.kill()
            pytest.fail(f"the server outlived its client ({spent:.2f}s CPU in 2 s after)")
    assert busy > 0.3  # the grep really was working when the client left
    assert code == 0
    # CPU, not wall time, so a loaded machine slows both alike: unstopped, the grep keeps
    # a core busy for the ~4 s left of its own 5 s bound; stopped, shutting down takes ~0.2 s
    lingered = total - busy
    assert lingered < 1.0, f"the server worked on for {lingered:.2f}s CPU after its client left"


CONCURRENT_CALLS = [
    ("search", {"query": "flask request"}),
    ("grep", {"pattern": "part 1"}),
    ("index", {"prefix": "docs/"}),
    ("read", {"id": "docs/runs.md#3", "context": 2}),
    ("repocontext_search", {"query": "request"}),
    ("repocontext_outline", {"path": "app.py"}),
    ("repocontext_related", {"path": "app.py"}),
    ("repocontext_context", {"task": "change what request returns",
                             "responseBudgetTokens": 1500}),
]


def test_calls_running_side_by_side_answer_as_they_do_one_at_a_time(repo):
    with open_workspace(repo) as ws:
        serial = [call(ws, name, args) for name, args in CONCURRENT_CALLS]
        runner = BoundedCalls(ws, seconds=30)
        answers: dict[int, dict] = {}

        async def one(i, name, args):
            answers[i] = await runner.run(name, args)

        async def body():
            async with anyio.create_task_group() as tg:
                for round_ in range(4):
                    for j, (name, args) in enumerate(CONCURRENT_CALLS):
                        tg.start_soon(one, round_ * len(CONCURRENT_CALLS) + j, name, args)

        anyio.run(body)
    for i, answer in answers.items():
        expected = dict(serial[i % len(CONCURRENT_CALLS)])
        if "indexAgeSeconds" in expected:  # the clock moves on between the calls
            assert answer.pop("indexAgeSeconds") >= expected.pop("indexAgeSeconds")
        assert answer == expected, CONCURRENT_CALLS[i % len(serial)]
    assert len(answers) == 4 * len(CONCURRENT_CALLS)


def test_pasted_issues_of_64k_are_answered_within_the_deadline(repo):
    """A whole pasted issue is reduced, not refused; a hostile one of the
    maximum length is answered in time; one over the maximum is a tool error."""
    issue = ("The request helper returns the wrong thing\n<!-- template: describe it -->\n"
             + "lorem ipsum dolor " * 3700
             + '\nTraceback:\n  File "/srv/app.py", line 2, in request\nValueError: no\n')
    assert len(issue) > 64_000
    calls = {"search": ("repocontext_search", {"query": issue}),
             "context": ("repocontext_context", {"task": issue, "responseBudgetTokens": 2000}),
             "hostile": ("repocontext_search", {"query": "a/" * 49_999 + "x"}),
             "over": ("repocontext_search", {"query": "x" * 100_001})}
    done: dict[str, tuple[float, object]] = {}

    async def body():
        async with stdio_client(serve_params(repo)) as (read, write_), \
                ClientSession(read, write_) as session:
            await session.initialize()
            for key, (tool, args) in calls.items():
                start = time.monotonic()
                result = await session.call_tool(tool, args)
                done[key] = (time.monotonic() - start, result)

    anyio.run(body)
    assert all(seconds < DEADLINE_S * 5 for seconds, _ in done.values())
    search, context, hostile, over = (done[k][1] for k in calls)
    assert search.is_error is False and payload(search)["hits"][0]["path"] == "app.py"
    assert context.is_error is False and payload(context)["entries"][0]["path"] == "app.py"
    assert hostile.is_error is False
    assert over.is_error is True and "100000" in payload(over)["error"]["message"]
