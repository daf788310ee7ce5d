"""cli/index: ``repoctx index``'s work, the same through its click command and through
the plain path (``cli.dispatch``, no click)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from click.testing import CliRunner

from repoctx import cli
from repoctx.cli import commands


def test_index_through_click_and_through_the_plain_path_answer_alike(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    args = ["index", str(tmp_path), "--repo-id", "demo", "--no-export", "--json"]
    assert cli.plain_index(args) is not None  # so ``python -m repoctx`` skips click
    first = CliRunner().invoke(commands.main, args)  # click
    assert first.exit_code == 0, first.output
    plain = subprocess.run([sys.executable, "-m", "repoctx", *args], capture_output=True,
                           text=True, env={**os.environ, "REPOCTX_DEFAULT_EMBEDDER": "none"})
    assert plain.returncode == 0, plain.stderr
    clicked, direct = json.loads(first.output), json.loads(plain.stdout)
    assert direct["unchanged"] == clicked["scanned"] == direct["scanned"] == 1
    assert set(direct) == set(clicked) and direct["export"] is None
