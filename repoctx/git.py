"""git — where a repository's git data lives, what its config files say, and what git's
tree at a revision holds.

``git_dir`` and ``config_value`` read as git reads them, without running git: a
worktree's or submodule's ``.git`` file points at its git directory, a worktree shares
its common directory's config, and a setting given in several config files takes the
value of the last one read. They read files only and never raise (an unreadable or
malformed file says nothing).

The revision readers run git itself, one process per kind of question (never one per
file): ``commit_of`` names a revision's commit, ``diff_names`` lists what differs
between its tree and the working tree, ``untracked`` the files git does not track and
does not ignore, ``blobs`` the text of many files at the revision through one
``git cat-file --batch``. Paths are relative to the folder asked about (which may lie
below the repository's top). They raise ``GitError`` subclasses with a message saying
what to do.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

from repoctx.errors import GitError, NotAGitRepositoryError, UnknownRevisionError

GIT_TIMEOUT_S = 120.0
"""The longest one git process may run: a diff of a huge tree on a slow disk, not a hang."""
_FORBIDDEN_IN_REVISION = ("\n", "\r", "\0")  # batch input is one name per line


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


def commit_of(root: Path, revision: str) -> str:
    """The commit ``revision`` names (any ``git rev-parse`` spelling: ``HEAD~1``, a
    branch, a tag, a sha), as 40 hex digits."""
    if not revision or any(c in revision for c in _FORBIDDEN_IN_REVISION):
        raise UnknownRevisionError(f"{revision!r} is not a revision (a line break or NUL "
                                   "cannot be part of one)")
    out = _git(root, ("cat-file", "--batch-check=%(objectname) %(objecttype)"),
               f"{revision}^{{commit}}\n{revision}\n".encode())
    answers = out.decode("utf-8", errors="replace").splitlines()
    commit, named = (answers + ["", ""])[:2]
    if commit.endswith(" commit"):
        return commit.split(" ", 1)[0]
    if named.endswith(" missing") or not named:
        raise UnknownRevisionError(
            f"unknown revision {revision!r}: list revisions with `git log --oneline` or "
            "`git branch -a`")
    kind = named.rsplit(" ", 1)[-1]
    raise UnknownRevisionError(f"{revision!r} names a {kind}, not a commit: give a commit, "
                               "a branch or a tag")


def diff_names(root: Path, commit: str) -> list[tuple[str, str]]:
    """``(status, path)`` of each file differing between ``commit``'s tree and the working
    tree under ``root``: ``A`` added, ``D`` deleted, ``M`` modified (type changes and
    unmerged files count as ``M``). Renames are a deletion and an addition."""
    out = _git(root, ("diff", "--name-status", "-z", "--no-renames", "--relative",
                      "--no-ext-diff", commit, "--"))
    fields = out.decode("utf-8", errors="surrogateescape").split("\0")
    pairs = []
    for status, path in zip(fields[0::2], fields[1::2], strict=False):
        if path:
            pairs.append((status if status in ("A", "D") else "M", path))
    return pairs


def untracked(root: Path) -> list[str]:
    """The files under ``root`` that git neither tracks nor ignores."""
    out = _git(root, ("ls-files", "--others", "--exclude-standard", "-z"))
    return [p for p in out.decode("utf-8", errors="surrogateescape").split("\0") if p]


def blobs(root: Path, commit: str, paths: Sequence[str]) -> dict[str, bytes]:
    """The bytes of each of ``paths`` (relative to ``root``) in ``commit``'s tree; a path
    the tree lacks there (or one whose name has a line break) is left out."""
    asked = [p for p in paths if "\n" not in p and "\r" not in p]
    if not asked:
        return {}
    prefix = _git(root, ("rev-parse", "--show-prefix")).decode("utf-8").strip()
    # "commit:./path" would be relative to the working directory too, but not every git
    # version resolves it in batch mode: name the path from the top instead
    request = "".join(f"{commit}:{prefix}{p}\n" for p in asked).encode(
        "utf-8", errors="surrogateescape")
    out = _git(root, ("cat-file", "--batch"), request)
    found, at = {}, 0
    for path in asked:
        end = out.index(b"\n", at)
        header = out[at:end].split(b" ")
        at = end + 1
        if len(header) != 3:  # "<name> missing", "<name> ambiguous"
            continue
        size = int(header[2])
        if header[1] == b"blob":
            found[path] = out[at:at + size]
        at += size + 1  # the content, then a line feed
    return found


def _git(root: Path, args: Sequence[str], stdin: bytes | None = None) -> bytes:
    """The standard output of ``git args`` run in ``root``."""
    try:
        done = subprocess.run(("git", *args), cwd=root, input=stdin, capture_output=True,
                              timeout=GIT_TIMEOUT_S, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH): install it to compare "
                       "with a revision") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} ran longer than {GIT_TIMEOUT_S:.0f} s in {root}"
                       ) from None
    if done.returncode == 0:
        return done.stdout
    err = done.stderr.decode("utf-8", errors="replace").strip()
    if "not a git repository" in err:
        raise NotAGitRepositoryError(f"{root} is not inside a git repository")
    raise GitError(f"git {args[0]} failed in {root}: {err.splitlines()[-1] if err else ''}")
