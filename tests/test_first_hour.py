"""The first hour, through real ``repoctx`` processes: what a new user or an agent's
operator meets on every path. Each test names the finding it covers."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

import pytest

from repoctx.retrieval import open_workspace
from repoctx.tools.registry import call

from .reconcile.helpers import as_nobody

FILES = {
    "pkg/__init__.py": "",
    "pkg/globals.py": "class Config:\n    debug = False\n",
    "pkg/ctx.py": "from .globals import Config\n\n\nclass AppContext:\n"
                  "    def push(self):\n        return Config()\n",
    "docs/guide.md": "# Guide\n\nPush an app context before the request.\n",
}


def repoctx(*args: str, cwd: Path | None = None, env: dict | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "repoctx", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout, env=env)


def write_repo(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def answer(proc: subprocess.CompletedProcess) -> dict:
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> Path:
    root = write_repo(tmp_path_factory.mktemp("first-hour") / "repo")
    assert repoctx("index", str(root), "--repo-id", "demo").returncode == 0
    return root


# 1. A path that does not exist is a usage error and nothing is created.
@pytest.mark.parametrize("args", [
    ["index", "{missing}"], ["stats", "{missing}"], ["export", "{missing}"],
    ["gc", "{missing}"], ["backup", "{tmp}/copy", "{missing}"],
    ["call", "repocontext_outline", '{{"path": "a.py"}}', "--repo", "{missing}"],
    ["call", "repocontext_outline", '{{"path": "a.py"}}', "--path", "{missing}"],
    ["serve", "--repo", "{missing}"], ["memory", "scan", "--repo", "{missing}"],
    ["sync-serve", "--repo", "{missing}"],
    ["call", "search", '{{"query": "x"}}', "--db", "{missing}/x.sqlite"],
    ["stats", "{tmp}", "--store", "{missing}"],
], ids=lambda a: " ".join(a[:2]))
def test_1_a_missing_path_is_a_usage_error_that_creates_nothing(tmp_path, args):
    missing = tmp_path / "no" / "such" / "dir"
    proc = repoctx(*[a.format(missing=missing, tmp=tmp_path) for a in args])
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and str(missing) in proc.stderr
    assert "does not exist" in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# 2. Tools on a repository that was never indexed: one error, nothing written.
@pytest.mark.parametrize(("tool", "args"), [
    ("repocontext_outline", {"path": "pkg/ctx.py"}), ("repocontext_related", {"path": "a.py"}),
    ("repocontext_changed", {}), ("repocontext_search", {"query": "x"}),
    ("repocontext_symbols", {"query": "x"}), ("repocontext_context", {"task": "x"}),
    ("repocontext_remember", {"topic": "t"}), ("repocontext_health", {}),
    ("search", {"query": "x"}),
])
def test_2_every_tool_on_a_never_indexed_repository_says_so_and_writes_nothing(tmp_path, tool,
                                                                              args):
    root = write_repo(tmp_path / "repo")
    proc = repoctx("call", tool, json.dumps(args), "--repo", str(root))
    assert proc.returncode == 1
    assert answer(proc) == {"error": {"message": f"no index for {root}: run `repoctx index "
                                                 f"{root}`"}}
    assert not (root / ".repoctx").exists()


# 3. A read-only checkout can be read.
def _can_unshare() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode == 0


READS = [("repocontext_outline", {"path": "pkg/ctx.py"}), ("repocontext_search", {"query": "push"}),
         ("repocontext_symbols", {"query": "AppContext"}), ("repocontext_related",
                                                            {"path": "pkg/ctx.py"}),
         ("repocontext_changed", {}), ("repocontext_context", {"task": "push a context"}),
         ("repocontext_health", {}), ("search", {"query": "context"}),
         ("grep", {"pattern": "Config"})]


@pytest.mark.skipif(not _can_unshare(), reason="needs user namespaces for a read-only mount")
def test_3_tools_answer_on_a_read_only_mount_and_writers_say_why_not(indexed, tmp_path):
    script = [f"mount --bind {indexed} {indexed}", f"mount -o remount,bind,ro {indexed}"]
    for tool, args in READS:
        script.append(f"{sys.executable} -m repoctx call {tool} '{json.dumps(args)}' "
                      f"--repo {indexed} > {tmp_path}/{tool}.out; echo $? >> {tmp_path}/rc")
    script.append(f"{sys.executable} -m repoctx call repocontext_remember '{{\"topic\": \"t\"}}' "
                  f"--repo {indexed} > {tmp_path}/remember.out; echo $? >> {tmp_path}/rc")
    script.append(f"{sys.executable} -m repoctx export {indexed} --out {tmp_path}/x.sqlite "
                  f">/dev/null; echo $? >> {tmp_path}/rc")
    script.append(f"{sys.executable} -m repoctx index {indexed} 2> {tmp_path}/index.err; "
                  f"echo $? >> {tmp_path}/rc")
    script.append(f"touch {indexed}/probe 2>/dev/null; echo $? >> {tmp_path}/rc")
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", " && ".join(script[:2]) + "; " +
                           "; ".join(script[2:])], capture_output=True, text=True, timeout=300)
    codes = (tmp_path / "rc").read_text().split()
    assert codes[:len(READS)] == ["0"] * len(READS), proc.stderr
    for tool, _ in READS:
        assert "error" not in json.loads((tmp_path / f"{tool}.out").read_text()), tool
    assert codes[len(READS)] == "1"  # the writing tool, with a reason
    message = json.loads((tmp_path / "remember.out").read_text())["error"]["message"]
    assert "repocontext_remember" in message and "read-only" in message
    assert codes[len(READS) + 1] == "0" and (tmp_path / "x.sqlite").is_file()
    assert codes[len(READS) + 2] == "1"  # an index needs to write, and says so in one line
    assert "cannot write the store" in (tmp_path / "index.err").read_text()
    assert codes[-1] != "0", "the mount was not read-only"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become nobody")
def test_3_another_users_store_with_read_permission_is_readable():
    base = Path(tempfile.mkdtemp(prefix="repoctx-other-"))
    try:
        root = write_repo(base / "repo")
        assert repoctx("index", str(root)).returncode == 0
        for path in [base, *base.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)  # readable, writable by root only

        def read(writable: bool | None = None) -> tuple:
            with open_workspace(root, writable=writable) as ws:
                outline = call(ws, "repocontext_outline", {"path": "pkg/ctx.py"})
                hits = call(ws, "search", {"query": "context"})["hits"]
                try:
                    call(ws, "repocontext_remember", {"topic": "t"})
                except Exception as exc:  # the answer the parent checks
                    return outline["exists"], len(hits), str(exc)
            return outline["exists"], len(hits), ""

        read(writable=False)  # imports every module first: nobody cannot read root's Python
        exists, hits, refused = as_nobody(read)
        assert exists is True and hits > 0 and "read-only" in refused
    finally:
        shutil.rmtree(base)


def test_3_readers_answer_while_an_index_writes(tmp_path):
    root = write_repo(tmp_path / "repo")
    for i in range(300):
        (root / "gen" / f"m{i}.py").parent.mkdir(exist_ok=True)
        (root / "gen" / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n" * 20)
    assert repoctx("index", str(root)).returncode == 0
    writer = subprocess.Popen([sys.executable, "-m", "repoctx", "index", str(root), "--full"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        answers = []
        while writer.poll() is None or not answers:
            proc = repoctx("call", "repocontext_outline", '{"path": "pkg/ctx.py"}', "--repo",
                           str(root))
            answers.append((proc.returncode, proc.stdout))
    finally:
        writer.wait(timeout=300)
    assert all(code == 0 and '"exists":true' in out for code, out in answers)


# 4. Arguments that are valid JSON but not objects.
@pytest.mark.parametrize(("text", "kind"), [
    ("[1,2]", "an array"), ('"text"', "a string"), ("null", "null"), ("[]", "an array"),
    ("3", "a number")])
def test_4_arguments_must_be_a_json_object(indexed, text, kind):
    proc = repoctx("call", "repocontext_outline", text, "--repo", str(indexed))
    assert proc.returncode == 2  # bad usage: the command line was wrong
    message = answer(proc)["error"]["message"]
    assert message.startswith(f"arguments must be a JSON object, not {kind}")


def test_4_wrong_types_unknown_fields_and_ranges_name_the_field(indexed):
    for args, expected in [({"path": 3}, "path: must be of type string (got integer)"),
                           ({"path": "a", "depth": 2}, "depth: not an argument of"),
                           ({}, "path: required by repocontext_outline")]:
        proc = repoctx("call", "repocontext_outline", json.dumps(args), "--repo", str(indexed))
        assert proc.returncode == 1 and expected in answer(proc)["error"]["message"]
    proc = repoctx("call", "repocontext_search", '{"query": "x", "k": 1000000000}', "--repo",
                   str(indexed))
    assert "k: must be an integer from 1 to 100 (got 1000000000)" in proc.stdout


# 5. Paths are normalised the same way by every tool.
def test_5_path_forms_name_the_same_file_in_every_tool(indexed):
    forms = ["pkg/ctx.py", "./pkg/ctx.py", str(indexed / "pkg" / "ctx.py"), "pkg\\ctx.py",
             "pkg//./ctx.py"]
    for form in forms:
        outline = answer(repoctx("call", "repocontext_outline", json.dumps({"path": form}),
                                 "--repo", str(indexed)))
        assert outline["exists"] is True and outline["path"] == "pkg/ctx.py", form
        related = answer(repoctx("call", "repocontext_related", json.dumps({"path": form}),
                                 "--repo", str(indexed)))
        assert related["path"] == "pkg/ctx.py", form
    for prefix in ["./pkg", str(indexed / "pkg"), "pkg/"]:
        hits = answer(repoctx("call", "repocontext_search",
                              json.dumps({"query": "push", "paths": [prefix]}),
                              "--repo", str(indexed)))["hits"]
        assert hits and all(h["path"].startswith("pkg/") for h in hits), prefix
    outside = repoctx("call", "repocontext_outline", '{"path": "../etc/passwd"}', "--repo",
                      str(indexed))
    assert outside.returncode == 1 and "is outside the repository" in outside.stdout


# 10. The store stays out of git status.
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_10_the_store_does_not_show_in_git_status(tmp_path):
    root = write_repo(tmp_path / "repo")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert repoctx("index", str(root)).returncode == 0
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=root, capture_output=True, text=True, check=True).stdout
    assert ".repoctx" not in status and "pkg/ctx.py" in status


# 11. Progress covers every phase, and --json times the whole command.
def test_11_index_json_times_every_phase_and_the_whole_command(tmp_path):
    root = write_repo(tmp_path / "repo")
    started = time.perf_counter()
    proc = repoctx("index", str(root), "--json")
    wall = time.perf_counter() - started
    seconds = answer(proc)["seconds"]
    assert {"walk", "project", "export", "total", "wall"} <= set(seconds)
    assert seconds["wall"] >= seconds["total"] + seconds["export"]
    assert seconds["wall"] <= wall + 0.5


def test_11_a_terminal_sees_one_bar_through_the_pass_and_the_export(tmp_path):
    root = write_repo(tmp_path / "repo")
    parent, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {**os.environ, "REPOCTX_PROGRESS_AFTER": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "repoctx", "index", str(root)],
                            stdout=subprocess.PIPE, stderr=child, env=env)
    os.close(child)
    shown = b""
    while True:
        try:
            chunk = os.read(parent, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    out = proc.communicate(timeout=120)[0].decode()
    os.close(parent)
    assert proc.returncode == 0 and "in all" in out
    assert b"export" in shown  # the phase after the projection is shown too


def test_11_without_a_terminal_nothing_but_the_summary(tmp_path):
    root = write_repo(tmp_path / "repo")
    proc = repoctx("index", str(root), env={**os.environ, "REPOCTX_PROGRESS_AFTER": "0"})
    assert proc.returncode == 0 and proc.stderr == ""


# 12. One vocabulary: option names, camelCase JSON, tool listings, hints.
def test_12_every_command_takes_repo_and_the_old_spellings_still_work(indexed):
    for args in (["stats", "--repo", str(indexed)], ["stats", str(indexed)],
                 ["call", "repocontext_health", "{}", "--repo", str(indexed)],
                 ["call", "repocontext_health", "{}", "--path", str(indexed)],
                 ["memory", "scan", "--repo", str(indexed)],
                 ["memory", "scan", "--path", str(indexed)]):
        assert repoctx(*args).returncode == 0, args
    assert "--path" not in repoctx("call", "--help").stdout  # a hidden alias


def test_12_json_keys_are_camel_case_everywhere(indexed):
    def keys(value) -> set[str]:
        if isinstance(value, dict):
            return {k for k in value} | {k for v in value.values() for k in keys(v)}
        return {k for v in value for k in keys(v)} if isinstance(value, list) else set()

    index_keys = set(answer(repoctx("index", str(indexed), "--json")))
    stats_keys = keys(answer(repoctx("stats", str(indexed), "--json")))
    assert not [k for k in index_keys | stats_keys if "_" in k]
    assert {"repoId", "recordsWritten", "skippedPaths"} <= index_keys


def test_12_tools_are_listed_and_a_typo_gets_a_suggestion(indexed):
    listing = repoctx("tools").stdout.splitlines()
    assert len(listing) >= 20 and listing[0].startswith("repocontext_")
    assert "repocontext_symbols" in repoctx("call", "--help").stdout
    typo = repoctx("call", "repocontext_outlin", "{}", "--repo", str(indexed))
    assert typo.returncode == 1
    assert "did you mean repocontext_outline?" in answer(typo)["error"]["message"]


def test_12_a_link_that_is_not_a_key_says_which_forms_are(indexed):
    proc = repoctx("memory", "remember", "t", "--link", "about=src/x.py", "--repo", str(indexed))
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert "repo/demo/file/PATH" in proc.stderr and "repo/demo/mem/TOPIC/ID" in proc.stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_12_a_worktree_takes_its_repository_id_from_the_shared_origin(tmp_path):
    main_tree = write_repo(tmp_path / "main")
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a", "-C", str(main_tree)]
    for args in (["init", "-q"], ["remote", "add", "origin", "git@example.org:Acme/Widget.git"],
                 ["add", "."], ["commit", "-qm", "x"],
                 ["worktree", "add", "-q", str(tmp_path / "second")]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    out = answer(repoctx("index", str(tmp_path / "second"), "--json"))
    assert out["repoId"] == "acme-widget"  # owner-name of the shared origin


# 2, over MCP: a server started before the index answers "no index", then serves it.
def test_2_an_mcp_server_started_before_the_index_says_so_then_answers(tmp_path):
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    root = write_repo(tmp_path / "repo")

    async def body():
        params = StdioServerParameters(command=sys.executable,
                                       args=["-m", "repoctx", "serve", "--repo", str(root)])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            before = await session.call_tool("repocontext_outline", {"path": "pkg/ctx.py"})
            assert not (root / ".repoctx").exists()
            await anyio.to_thread.run_sync(lambda: repoctx("index", str(root)))
            after = await session.call_tool("repocontext_outline", {"path": "pkg/ctx.py"})
            return before, after

    before, after = anyio.run(body)
    assert before.is_error and json.loads(before.content[0].text) == {
        "error": {"message": f"no index for {root}: run `repoctx index {root}`"}}
    assert not after.is_error and after.structured_content["exists"] is True


# 6. Symbol hits are the definitions, by their stored keys and spans.
def test_6_a_symbol_hit_is_the_definition_with_its_whole_span(indexed):
    hits = answer(repoctx("call", "repocontext_symbols", '{"query": "AppContext"}', "--repo",
                          str(indexed)))["hits"]
    top = hits[0]
    assert top["symbol"] == "pkg.ctx.AppContext" and top["lines"] == [4, 6]
    outline = answer(repoctx("call", "repocontext_outline", '{"path": "pkg/ctx.py"}', "--repo",
                             str(indexed)))
    assert {s["fqName"] for s in outline["symbols"]} >= {top["symbol"]}
    missing = repoctx("call", "repocontext_related", '{"symbol": "pkg.ctx.AppContext.AppContext"}',
                      "--repo", str(indexed))
    assert missing.returncode == 1 and "is not in the index" in missing.stdout


# 7. related resolves relative imports and says how much it left out.
def test_7_related_resolves_relative_imports_and_counts_what_it_omits(indexed):
    related = answer(repoctx("call", "repocontext_related", '{"path": "pkg/ctx.py", "k": 1}',
                             "--repo", str(indexed)))
    assert {"module": ".globals", "path": "pkg/globals.py"} in related["imports"]
    assert set(related["omitted"]) == {"imports", "dependents", "tests"}
