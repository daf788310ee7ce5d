"""git: the git directory of a checkout, and settings read across config files."""

from pathlib import Path

from repoctx.git import config_value, git_dir


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
