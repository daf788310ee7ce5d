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


def test_coverage_options_choose_the_data_file(tmp_path, monkeypatch):
    from tests.reconcile.coverage_repo import make_repo, measure

    repo = make_repo(tmp_path / "repo")
    data = measure(repo, "../elsewhere.coverage")
    monkeypatch.chdir(tmp_path)
    base = ["index", "repo", "--repo-id", "demo", "--no-export", "--json"]
    none = CliRunner().invoke(commands.main, base)  # no repo/.coverage
    assert none.exit_code == 0, none.output
    assert json.loads(none.output)["coverage"] is None
    given = CliRunner().invoke(commands.main, [*base, "--coverage", "elsewhere.coverage"])
    found = json.loads(given.output)["coverage"]
    assert data.exists() and found["files"] == 5 and found["ingested"] is True
    skipped = CliRunner().invoke(commands.main, [*base, "--coverage", "elsewhere.coverage",
                                                 "--no-coverage"])
    assert json.loads(skipped.output)["coverage"] is None
    text = CliRunner().invoke(commands.main, ["index", "repo", "--coverage",
                                              "elsewhere.coverage", "--no-export"])
    assert "coverage: 5 files, 2 tests, 0 stale" in text.output
