"""git — where a repository's git data lives, and what its config files say.

Read as git reads them, without running git: a worktree's or submodule's ``.git`` file
points at its git directory, a worktree shares its common directory's config, and a
setting given in several config files takes the value of the last one read. Reads files
only; never raises (an unreadable or malformed file says nothing).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def git_dir(root: Path) -> Path:
    """The directory holding the repository's git config (a worktree's common dir too)."""
    dot_git = root / ".git"
    if not dot_git.is_file():
        return dot_git
    try:  # a worktree or submodule: ".git" is a file "gitdir: <dir>"
        text = dot_git.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return dot_git
    if not text.startswith("gitdir:"):
        return dot_git
    found = (root / text.removeprefix("gitdir:").strip()).resolve()
    common = found / "commondir"
    try:
        return (found / common.read_text("utf-8").strip()).resolve()
    except (OSError, UnicodeDecodeError):
        return found  # a submodule's git dir holds its own config


def config_value(configs: Iterable[Path], section: str, key: str) -> str | None:
    """``key`` of ``section`` (``core``, ``remote "origin"``) in the last of ``configs``
    that sets it, or None."""
    import configparser  # only a caller that needs a setting pays for it

    value = None
    for config in configs:
        parser = configparser.ConfigParser(strict=False, interpolation=None)
        try:
            parser.read(config, encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError):
            continue  # a malformed config file costs only its own settings
        value = parser.get(section, key, fallback=value)
    return value
