"""reconcile/git_excludes: `.git/info/exclude` and `core.excludesFile`, as git applies them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from repoctx.reconcile.git_excludes import exclude_files, exclude_lines
from repoctx.reconcile.walk import walk


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user home of the test's own, with no git configuration of its own yet."""
    folder = tmp_path / "home"
    (folder / ".config").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return folder


def make_repo(root: Path) -> Path:
    for path in ("src/a.py", "scratch/b.py", "notes.tmp", "keep.log"):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x = 1\n")
    (root / ".git" / "info").mkdir(parents=True)
    return root


def walked(root: Path) -> list[str]:
    return [f.path for f in walk(root, store_dir=None).files]


def test_info_exclude_and_the_users_excludes_file_are_honoured(tmp_path, home):
    repo = make_repo(tmp_path / "repo")
    (repo / ".git" / "info" / "exclude").write_text("scratch/\n")
    (home / ".config" / "git").mkdir()
    (home / ".config" / "git" / "ignore").write_text("*.tmp\n*.log\n")  # git's default place
    assert walked(repo) == ["src/a.py"]
    (repo / ".gitignore").write_text("!keep.log\n")  # any .gitignore is stronger
    assert walked(repo) == [".gitignore", "keep.log", "src/a.py"]


def test_core_excludes_file_is_read_from_the_repository_config_first(tmp_path, home):
    repo = make_repo(tmp_path / "repo")
    (home / ".gitconfig").write_text("[core]\n\texcludesFile = ~/user-ignore\n")
    (home / "user-ignore").write_text("*.log\n")
    (repo / "repo-ignore").write_text("*.tmp\nrepo-ignore\n")
    assert walked(repo) == ["notes.tmp", "repo-ignore", "scratch/b.py", "src/a.py"]
    (repo / ".git" / "config").write_text('[core]\n\texcludesfile = "repo-ignore"\n')
    assert walked(repo) == ["keep.log", "scratch/b.py", "src/a.py"]


def test_outside_git_no_exclude_file_applies(tmp_path, home):
    (home / ".config" / "git").mkdir()
    (home / ".config" / "git" / "ignore").write_text("*.py\n")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "a.py").write_text("x = 1\n")
    assert exclude_files(str(tmp_path / "plain")) == ()
    assert walked(tmp_path / "plain") == ["a.py"]


def test_unreadable_or_missing_sources_contribute_nothing(tmp_path, home):
    repo = make_repo(tmp_path / "repo")
    (repo / ".git" / "config").write_text("[core\nexcludesfile\n\x00garbage")
    assert exclude_files(str(repo)) == ()
    assert exclude_lines(((str(tmp_path / "gone"), 0, 0),)) == []


def test_editing_info_exclude_reindexes_what_it_names(tmp_path, home):
    repo = make_repo(tmp_path / "repo")
    exclude = repo / ".git" / "info" / "exclude"
    exclude.write_text("scratch/\n")

    def index() -> dict:
        done = subprocess.run([sys.executable, "-m", "repoctx", "index", str(repo), "--json",
                               "--embedder", "none"], capture_output=True, text=True,
                              timeout=300, env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    assert index()["added"] == 3  # src/a.py, notes.tmp, keep.log
    assert index()["added"] == 0
    exclude.write_text("")  # the saved walk is not trusted past this edit
    assert index()["added"] == 1
