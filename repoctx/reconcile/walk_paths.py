"""reconcile/walk_paths — the walk's verdict on a few paths, without walking the tree.

``changed {"since": REV}`` asks about the files git lists (its diff and the untracked
files): would the index see each one? A walk of the whole tree to answer for three files
costs ~0.1 s on Django; this reads only what lies on each path's way down from the root:
the ignore rules, the store and ``.git`` as a watcher's ``EventFilter`` judges them (the
walk's own rules, one path at a time), and what the walk adds to those: ``max_depth``, an
unreadable directory on the way, a file that is not a regular one. A symlink on the way
makes the answer depend on where the walk follows it, so then there is none (None: walk
instead). The walk's bound on the number of files is the caller's to check: this never
counts.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from repoctx.reconcile.event_filter import EventFilter
from repoctx.reconcile.walk import DEFAULT_DEPTH, NEVER_ENTERED, decodable, real_root

_FOLLOWED = object()
"""A symlink on a path's way: only a walk can say what it lists there."""


def seen(root: Path, paths: Iterable[str], *, store_dir: Path | None,
         max_depth: int = DEFAULT_DEPTH) -> dict[str, tuple[int, int]] | None:
    """``path -> (size, mtime_ns)`` of those of ``paths`` (relative, POSIX) that
    ``walk(root, store_dir=store_dir, max_depth=max_depth)`` would list, or None when a
    symlink on the way of one of them leaves that to a walk."""
    top = real_root(root)
    rules = EventFilter(Path(top), store_dir)
    out = {}
    for path in paths:
        parts = path.split("/")
        if (len(parts) - 1 > max_depth or any(p in ("", ".", "..") for p in parts)
                or not NEVER_ENTERED.isdisjoint(parts) or not decodable(path)):
            continue
        found = _stat(top, parts)
        if found is _FOLLOWED:
            return None
        if found is not None and rules.wants(f"{top}/{path}"):
            out[path] = found
    return out


def _stat(top: str, parts: list[str]) -> object:
    """``(size, mtime_ns)`` of the regular file at ``parts`` below readable directories,
    None when there is none such, ``_FOLLOWED`` for a symlink on the way."""
    for cut in range(1, len(parts) + 1):
        absolute = f"{top}/{'/'.join(parts[:cut])}"
        try:
            info = os.lstat(absolute)
        except OSError:
            return None
        if stat.S_ISLNK(info.st_mode):
            return _FOLLOWED
        if cut < len(parts) and not (stat.S_ISDIR(info.st_mode)
                                     and os.access(absolute, os.R_OK | os.X_OK)):
            return None
    return (info.st_size, info.st_mtime_ns) if stat.S_ISREG(info.st_mode) else None
