"""cli/commands: the click group, read through ``repoctx.cli``."""

from __future__ import annotations

from click.testing import CliRunner

from repoctx import cli
from repoctx.cli import commands


def test_the_group_is_read_through_cli_and_lists_every_command():
    assert cli.main is commands.main
    result = CliRunner().invoke(cli.main, ["--help"])
    assert result.exit_code == 0
    for name in ("index", "export", "call", "memory", "sync", "sync-serve", "check", "repair"):
        assert f"  {name} " in result.output


def test_search_and_context_write_nothing_unless_a_call_asks(tmp_path):
    import json
    import subprocess
    import sys

    (tmp_path / "cart.py").write_text("def total(items):\n    return sum(items)\n")

    def run(*args: str) -> dict:
        done = subprocess.run([sys.executable, "-m", "repoctx", *args, "--repo", str(tmp_path)],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout) if done.stdout.startswith("{") else {}

    subprocess.run([sys.executable, "-m", "repoctx", "index", str(tmp_path), "--embedder", "none"],
                   check=True, capture_output=True, timeout=300)
    data = tmp_path / ".repoctx" / "lmdb" / "data.mdb"
    before = data.stat().st_mtime_ns
    assert run("call", "repocontext_search", '{"query": "total"}')["hits"]
    assert run("call", "repocontext_context", '{"task": "fix total"}')["entries"]
    assert data.stat().st_mtime_ns == before  # opened read-only: nothing written
    first = run("call", "repocontext_context", '{"task": "fix total", "session": "s1"}')
    again = run("call", "repocontext_context", '{"task": "fix total", "session": "s1"}')
    assert first["entries"] and again["reused"]  # the session's receipts were written


def test_call_changed_since_head_names_the_edited_definition(tmp_path):
    import json
    import subprocess
    import sys

    from tests.git_repo import commit_all

    (tmp_path / ".gitignore").write_text(".repoctx/\n")
    (tmp_path / "cart.py").write_text("def total(items):\n    return sum(items)\n\n\n"
                                      "def empty():\n    return []\n")
    subprocess.run([sys.executable, "-m", "repoctx", "index", str(tmp_path), "--embedder", "none"],
                   check=True, capture_output=True, timeout=300)
    commit_all(tmp_path, "first")
    (tmp_path / "cart.py").write_text("# Carts.\ndef total(items):\n    return sum(items, 0)\n\n\n"
                                      "def empty():\n    return []\n")

    def call(arguments: str) -> tuple[int, dict]:
        done = subprocess.run([sys.executable, "-m", "repoctx", "call", "repocontext_changed",
                               arguments, "--repo", str(tmp_path)],
                              capture_output=True, text=True, timeout=300)
        return done.returncode, json.loads(done.stdout)

    status, got = call('{"since":"HEAD"}')
    assert status == 0 and got["updated"] == ["cart.py"]
    assert got["changedSymbols"] == [{"fqName": "cart.total", "path": "cart.py",
                                      "change": "modified"}]
    status, got = call('{"since":"no-such-branch"}')
    assert status == 1 and "unknown revision 'no-such-branch'" in got["error"]["message"]
