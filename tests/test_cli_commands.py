"""cli_commands: the click group, read through ``repoctx.cli``, and its ``index``
command running ``cli.index_run`` as the plain path does."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from click.testing import CliRunner

from repoctx import cli, cli_commands


def test_the_group_is_read_through_cli_and_lists_every_command():
    assert cli.main is cli_commands.main
    result = CliRunner().invoke(cli.main, ["--help"])
    assert result.exit_code == 0
    for name in ("index", "export", "call", "memory", "sync", "sync-serve", "check", "repair"):
        assert f"  {name} " in result.output


def test_index_through_click_and_through_the_plain_path_answer_alike(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    args = ["index", str(tmp_path), "--repo-id", "demo", "--no-export", "--json"]
    first = CliRunner().invoke(cli_commands.main, args)  # click
    assert first.exit_code == 0, first.output
    plain = subprocess.run([sys.executable, "-m", "repoctx", *args], capture_output=True,
                           text=True, env={**os.environ, "REPOCTX_DEFAULT_EMBEDDER": "none"})
    assert plain.returncode == 0, plain.stderr
    clicked, direct = json.loads(first.output), json.loads(plain.stdout)
    assert direct["unchanged"] == clicked["scanned"] == direct["scanned"] == 1
    assert set(direct) == set(clicked) and direct["export"] is None
