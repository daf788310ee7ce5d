"""reconcile/event_filter — which changed paths a pass must look at: the walk's own ignore
rules, applied to one path at a time.

A file watcher reports absolute paths. ``EventFilter.wants`` is True for a path the walk
could list (or whose removal it would notice) and False for one the walk never looks at:
anything in ``.git`` or a ``.repoctx`` store, in the active store wherever it lies (a pass's
own writes must never start another pass), outside the root, or ignored by git's exclude
files and the ``.gitignore`` / ``.contextpullignore`` / ``.repoctxignore`` chain, judged
with the walk's ``ignored`` and ``chained`` so both always agree. An ignore file (or git's
exclude file) is wanted, since editing one changes what the walk lists, and a change to one
drops the rules read so far. Reads ignore files only, each directory's once until then.
"""

from __future__ import annotations

import os
from pathlib import Path

from repoctx.reconcile.git_excludes import exclude_files, exclude_lines
from repoctx.reconcile.walk import (
    IGNORE_FILES,
    NEVER_ENTERED,
    IgnoreRules,
    chained,
    ignore_lines,
    ignored,
    within,
)


class EventFilter:
    """The walk's verdict on changed paths under one root (real paths throughout)."""

    def __init__(self, root: Path, store_dir: Path | None) -> None:
        self.root = os.path.realpath(root)
        self.store = os.path.realpath(store_dir) if store_dir is not None else None
        self._rules: dict[str, tuple[IgnoreRules, ...]] = {}
        self._excludes: frozenset[str] = frozenset()

    def wants(self, path: str) -> bool:
        """True when a change at ``path`` (absolute) may change what a pass finds."""
        path = os.path.normpath(path)
        if self.store is not None and within(path, self.store):
            return False
        if path in self._exclude_paths():
            self._rules.clear()
            return True
        if path == self.root or not within(path, self.root):
            return False
        parts = path[len(self.root) + 1:].split("/")
        if not NEVER_ENTERED.isdisjoint(parts):
            return False
        if parts[-1] in IGNORE_FILES:
            self._rules.clear()  # the rules below this directory change with it
        return not self._ignored(parts, os.path.isdir(path) and not os.path.islink(path))

    def _ignored(self, parts: list[str], is_dir: bool) -> bool:
        """The walk's verdict on the path ``parts``: an ignored directory above it hides it
        (the walk never enters one), else the rules of its own directory decide."""
        rules = self._chain("", ())
        for depth in range(1, len(parts)):
            directory = "/".join(parts[:depth])
            if ignored(rules, directory, True):
                return True
            rules = self._chain(directory, rules)
        return ignored(rules, "/".join(parts), is_dir)

    def _chain(self, directory: str, above: tuple[IgnoreRules, ...]) -> tuple[IgnoreRules, ...]:
        """The rules for the entries of ``directory`` ('' is the root, whose chain starts
        with git's exclude files, as the walk's does)."""
        known = self._rules.get(directory)
        if known is None:
            base = os.path.join(self.root, directory) if directory else self.root
            lines = exclude_lines(exclude_files(self.root)) if not directory else []
            own: list[str] = []
            for name in IGNORE_FILES:  # lowest precedence first, as the walk reads them
                candidate = os.path.join(base, name)
                if os.path.isfile(candidate) and not os.path.islink(candidate):
                    try:
                        own += ignore_lines(candidate)
                    except OSError:
                        continue  # unreadable: the walk reports it and applies nothing
            start = chained(above, "", lines) if lines else above
            known = chained(start, directory + "/" if directory else "", own)
            self._rules[directory] = known
        return known

    def _exclude_paths(self) -> frozenset[str]:
        """Git's exclude files of the root (read once; they rarely appear or vanish)."""
        if not self._excludes:
            self._excludes = frozenset(os.path.normpath(p) for p, _, _ in
                                       exclude_files(self.root)) or frozenset({""})
        return self._excludes

