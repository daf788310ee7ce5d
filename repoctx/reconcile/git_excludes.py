"""reconcile/git_excludes — git's ignore sources beyond the `.gitignore` files of the tree.

Inside a git repository git also ignores what `.git/info/exclude` lists and what the
file named by `core.excludesFile` lists (default `$XDG_CONFIG_HOME/git/ignore`, else
`~/.config/git/ignore`), both relative to the repository root and both weaker than any
`.gitignore`; the excludes file is the weakest. `exclude_files` names those that exist,
with the stat a walk cache compares (so editing one re-walks), and `exclude_lines` reads
them. Outside git neither applies. Reads files only; never raises.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from repoctx.store import git_dir

ExcludeFile = tuple[str, int, int]
"""``(absolute path, ctime_ns, size)`` of one exclude file."""

_SECTION = re.compile(r"\s*\[\s*([^\]\s]+)[^\]]*\]")
_EXCLUDES_FILE = re.compile(r"\s*excludesfile\s*=\s*(.*?)\s*$", re.IGNORECASE)


def exclude_files(root: str) -> tuple[ExcludeFile, ...]:
    """Git's exclude files for the repository at ``root``, weakest first (none outside git)."""
    if not os.path.exists(os.path.join(root, ".git")):
        return ()
    found = []
    for path in (_excludes_file(Path(root)), git_dir(Path(root)) / "info" / "exclude"):
        try:
            info = os.stat(path)
        except OSError:
            continue
        found.append((str(path), info.st_ctime_ns, info.st_size))
    return tuple(found)


def exclude_lines(files: tuple[ExcludeFile, ...]) -> list[str]:
    """The pattern lines of ``files``, in order (an unreadable one contributes nothing)."""
    lines: list[str] = []
    for path, _, _ in files:
        try:
            with open(path, "rb") as handle:
                lines += handle.read().decode("utf-8", "replace").splitlines()
        except OSError:
            continue
    return lines


def _excludes_file(root: Path) -> Path:
    """``core.excludesFile`` as git reads it (the repository's config over the user's over
    the system's), else its default."""
    home = Path(os.environ.get("HOME") or Path.home())
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    chosen = None
    for config in (Path("/etc/gitconfig"), xdg / "git" / "config", home / ".gitconfig",
                   git_dir(root) / "config"):
        chosen = _configured(config) or chosen
    if chosen is None:
        return xdg / "git" / "ignore"
    chosen = chosen.strip('"')
    if chosen.startswith("~/"):
        return home / chosen[2:]
    return root / chosen if not os.path.isabs(chosen) else Path(chosen)


def _configured(config: Path) -> str | None:
    """The last ``excludesFile`` of the ``[core]`` section of one git config file."""
    try:
        text = config.read_text("utf-8", errors="replace")
    except OSError:
        return None
    section, value = "", None
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header:
            section = header.group(1).lower()
            continue
        setting = _EXCLUDES_FILE.match(line) if section == "core" else None
        if setting:
            value = setting.group(1)
    return value
