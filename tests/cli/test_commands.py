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
