"""A real git repository for tests: run git in a folder, commit all that is there."""

from __future__ import annotations

import subprocess
from pathlib import Path

_IDENTITY = ("-c", "user.name=Test", "-c", "user.email=test@example.org",
             "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main")


def git(root: Path, *args: str) -> str:
    """The output of ``git args`` in ``root`` (a failure fails the test)."""
    done = subprocess.run(("git", *_IDENTITY, *args), cwd=root, capture_output=True,
                          text=True, check=True, timeout=60)
    return done.stdout


def commit_all(root: Path, message: str) -> str:
    """Stage everything under ``root`` (``git init`` first if needed), commit; the sha."""
    if not (root / ".git").exists():
        git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()
