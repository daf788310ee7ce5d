"""git: the git directory of a checkout, settings read across config files, and what a
revision's tree holds (read through a real git)."""

from pathlib import Path

import pytest

from repoctx.errors import NotAGitRepositoryError, UnknownRevisionError
from repoctx.git import blobs, commit_of, config_value, diff_names, git_dir, untracked
from tests.git_repo import commit_all, git


def test_a_worktree_reads_the_config_of_its_common_directory(tmp_path: Path):
    common = tmp_path / "main" / ".git"
    (common / "worktrees" / "w").mkdir(parents=True)
    (common / "worktrees" / "w" / "commondir").write_text("../..\n")
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / ".git").write_text(f"gitdir: {common / 'worktrees' / 'w'}\n")
    assert git_dir(tmp_path / "w") == common.resolve()
    assert git_dir(tmp_path / "main") == common


def test_the_last_config_that_sets_a_key_wins_and_a_malformed_one_says_nothing(tmp_path):
    system, user, repo = (tmp_path / n for n in ("system", "user", "repo"))
    system.write_text("[core]\n\texcludesFile = /etc/ignore\n")
    user.write_text('[remote "origin"]\n\turl = git@example.org:a/b.git\n')
    repo.write_text("[core\nexcludesfile\n\x00garbage")
    configs = (system, user, repo, tmp_path / "missing")
    assert config_value(configs, "core", "excludesfile") == "/etc/ignore"
    assert config_value(configs, 'remote "origin"', "url") == "git@example.org:a/b.git"
    user.write_text("[core]\n\texcludesfile = ~/mine\n")
    assert config_value(configs, "core", "excludesfile") == "~/mine"
    assert config_value(configs, "user", "name") is None


def test_a_revision_names_its_commit_or_says_why_not(tmp_path: Path):
    repo, plain = tmp_path / "repo", tmp_path / "plain"
    repo.mkdir()
    plain.mkdir()
    sha = commit_all(repo, "first")
    assert commit_of(repo, "HEAD") == sha == commit_of(repo, sha[:10])
    with pytest.raises(UnknownRevisionError, match="unknown revision 'nope'.*git log"):
        commit_of(repo, "nope")
    with pytest.raises(UnknownRevisionError, match="names a tree, not a commit"):
        commit_of(repo, "HEAD^{tree}")
    with pytest.raises(UnknownRevisionError, match="line break"):
        commit_of(repo, "HEAD\nnope")
    with pytest.raises(NotAGitRepositoryError):
        commit_of(plain, "HEAD")


def test_diff_untracked_and_blobs_answer_relative_to_the_folder_asked(tmp_path: Path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.py").write_text("a\n")
    (tmp_path / "sub" / "gone.py").write_text("g\n")
    (tmp_path / "top.py").write_text("t\n")
    (tmp_path / ".gitignore").write_text("*.log\n")
    sha = commit_all(tmp_path, "first")
    (tmp_path / "sub" / "a.py").write_text("a2\n")
    (tmp_path / "sub" / "gone.py").unlink()
    (tmp_path / "sub" / "staged.py").write_text("s\n")
    git(tmp_path, "add", "sub/staged.py")
    (tmp_path / "sub" / "loose.py").write_text("l\n")
    (tmp_path / "sub" / "noise.log").write_text("ignored\n")
    sub = tmp_path / "sub"
    assert sorted(diff_names(sub, sha)) == [("A", "staged.py"), ("D", "gone.py"),
                                             ("M", "a.py")]
    assert untracked(sub) == ["loose.py"]
    assert blobs(sub, sha, ["a.py", "gone.py", "staged.py", "odd\nname"]) == {
        "a.py": b"a\n", "gone.py": b"g\n"}
    assert blobs(tmp_path, sha, ["top.py", "sub/a.py"]) == {"top.py": b"t\n",
                                                           "sub/a.py": b"a\n"}
