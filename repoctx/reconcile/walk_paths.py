"""reconcile/walk_paths — the walk's verdict on a few paths, without walking the tree.

``changed {"since": REV}`` asks about the files git lists (its diff and the untracked
files): would the index see each one? A walk of the whole tree to answer for three files
costs ~0.1 s on Django; this reads only what lies on each path's way down from the root,
as ``walk`` would meet it: the ignore files of each directory on the way (chained as the
walk chains them, git's excludes weakest), whether a directory on the way is the store,
``.git``, a ``.repoctx``, past ``max_depth`` or unreadable, and the file's own ``lstat``.
A symlink on the way makes the answer depend on where the walk follows it, so then there
is none (None: walk instead). The walk's bound on the number of files is the caller's to
check: this never counts.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from repoctx.reconcile.git_excludes import exclude_files, exclude_lines
from repoctx.reconcile.walk import (
    DEFAULT_DEPTH,
    IGNORE_FILES,
    NEVER_ENTERED,
    IgnoreRules,
    chained,
    decodable,
    ignore_lines,
    ignored,
    real_root,
)

_FOLLOWED = object()
"""A symlink on a path's way: only a walk can say what it lists there."""


def seen(root: Path, paths: Iterable[str], *, store_dir: Path | None,
         max_depth: int = DEFAULT_DEPTH) -> dict[str, tuple[int, int]] | None:
    """``path -> (size, mtime_ns)`` of those of ``paths`` (relative, POSIX) that
    ``walk(root, store_dir=store_dir, max_depth=max_depth)`` would list, or None when a
    symlink on the way of one of them leaves that to a walk."""
    top = real_root(root)
    store = os.path.realpath(store_dir) if store_dir is not None else None
    base = chained((), "", exclude_lines(exclude_files(top)))
    entered: dict[str, tuple[IgnoreRules, ...] | None] = {"": _own_rules(top, "", base)}
    out = {}
    for path in paths:
        found = _file(top, store, max_depth, entered, path)
        if found is _FOLLOWED:
            return None
        if found is not None:
            out[path] = found
    return out


def _file(top: str, store: str | None, max_depth: int,
          entered: dict[str, tuple[IgnoreRules, ...] | None], path: str) -> object:
    """``(size, mtime_ns)`` if the walk lists ``path``, None if not, ``_FOLLOWED``."""
    parts = path.split("/")
    if (len(parts) - 1 > max_depth or any(p in ("", ".", "..") for p in parts)
            or not decodable(path)):
        return None
    for cut in range(1, len(parts)):
        rules = _directory(top, store, entered, "/".join(parts[:cut]))
        if rules is _FOLLOWED or rules is None:
            return rules
    rules = entered["/".join(parts[:-1])]
    try:
        info = os.lstat(f"{top}/{path}")
    except OSError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return _FOLLOWED
    if (parts[-1] in NEVER_ENTERED or not stat.S_ISREG(info.st_mode)
            or ignored(rules, path, False)):
        return None
    return info.st_size, info.st_mtime_ns


def _directory(top: str, store: str | None,
               entered: dict[str, tuple[IgnoreRules, ...] | None], rel: str) -> object:
    """The rules chain inside the directory ``rel`` if the walk enters it, else None
    (or ``_FOLLOWED``), each directory judged once."""
    if rel not in entered:
        parent, _, name = rel.rpartition("/")
        above, absolute = entered[parent], f"{top}/{rel}"
        try:
            info = os.lstat(absolute)
        except OSError:
            info = None
        if info is not None and stat.S_ISLNK(info.st_mode):
            return _FOLLOWED
        enters = (above is not None and info is not None and stat.S_ISDIR(info.st_mode)
                  and name not in NEVER_ENTERED and absolute != store
                  and os.access(absolute, os.R_OK | os.X_OK) and not ignored(above, rel, True))
        entered[rel] = _own_rules(absolute, rel + "/", above) if enters else None
    return entered[rel]


def _own_rules(absolute: str, prefix: str, above: tuple[IgnoreRules, ...],
               ) -> tuple[IgnoreRules, ...]:
    """``above`` chained with the ignore files of the directory at ``absolute``."""
    lines: list[str] = []
    for name in IGNORE_FILES:
        try:
            if stat.S_ISREG(os.lstat(f"{absolute}/{name}").st_mode):
                lines += ignore_lines(f"{absolute}/{name}")
        except OSError:
            continue  # absent (or unreadable, as the walk skips it)
    return chained(above, prefix, lines)
