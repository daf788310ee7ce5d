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
from pathlib import Path

from repoctx.git import config_value, git_dir

ExcludeFile = tuple[str, int, int]
"""``(absolute path, ctime_ns, size)`` of one exclude file."""



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
    chosen = config_value((Path("/etc/gitconfig"), xdg / "git" / "config",
                           home / ".gitconfig", git_dir(root) / "config"),
                          "core", "excludesfile")
    if chosen is None:
        return xdg / "git" / "ignore"
    chosen = chosen.strip('"')
    if chosen.startswith("~/"):
        return home / chosen[2:]
    return root / chosen if not os.path.isabs(chosen) else Path(chosen)
