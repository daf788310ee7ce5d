"""cli/root: a command run in a subfolder finds the repository's store, as git finds its root."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from repoctx.cli.root import default_root
from repoctx.store import enclosing_root


def repoctx(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """``repoctx ARGS`` as a fresh process in ``cwd``."""
    return subprocess.run([sys.executable, "-m", "repoctx", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300)


def make_repo(root: Path) -> Path:
    """A git repository (a bare ``.git`` folder is enough) with a nested package."""
    (root / ".git").mkdir(parents=True)
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "app.py").write_text("def run():\n    return 1\n")
    return root / "src" / "pkg"


def test_index_and_call_from_a_subfolder_use_the_repositorys_store(tmp_path):
    inner = make_repo(tmp_path / "repo")
    done = repoctx(inner, "index", "--json", "--embedder", "none")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["root"] == str(tmp_path / "repo") and report["added"] == 1
    assert report["store"] == str(tmp_path / "repo" / ".repoctx")
    assert not (inner / ".repoctx").exists()  # no second, partial store
    answer = repoctx(inner, "call", "repocontext_outline", '{"path": "src/pkg/app.py"}')
    assert answer.returncode == 0, answer.stdout
    assert [s["fqName"] for s in json.loads(answer.stdout)["symbols"]] == ["pkg.app.run"]


def test_the_nearest_store_wins_over_the_git_root(tmp_path):
    inner = make_repo(tmp_path / "repo")
    (inner / ".repoctx" / "lmdb").mkdir(parents=True)
    (inner / ".repoctx" / "lmdb" / "data.mdb").write_bytes(b"")
    assert enclosing_root(inner) == inner
    assert enclosing_root(tmp_path / "repo" / "src") == tmp_path / "repo"


def test_outside_any_repository_the_folder_itself_is_meant(tmp_path, monkeypatch):
    (tmp_path / "plain").mkdir()
    monkeypatch.chdir(tmp_path / "plain")
    assert enclosing_root(tmp_path / "plain") == tmp_path / "plain"
    assert default_root(None) == tmp_path / "plain"
    assert default_root(tmp_path / "elsewhere") == Path(".")  # --store: no discovery
