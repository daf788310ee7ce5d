"""reconcile/walk_cache — the last settled walk, so an unchanged tree is proven by stat alone.

A pass that leaves nothing to do saves what it walked: every directory's ctime, every
file's size and mtime, the ignore files it read. The next pass re-stats exactly those.
If every stat matches and nobody has written the structural tree since (its generation,
which any writer in any process moves), the tree on disk is the one the store already
holds and the pass ends there: no listing, no ignore matching, no record decoding.

Why ctimes for directories and ignore files: adding, removing or renaming an entry, a
write, or a chmod changes them; a write inside a listed file does not change its
directory, and the file's own stat catches that. A directory changed in the same clock
tick as its stat would keep its ctime, so a walk with a ctime within ``RACY_NS`` of its
start is not saved (git's "racy clean" rule; it assumes the file system's clock is not
behind this one). A walk that followed a symlink or could not look everywhere is not
saved either: those depend on more than the stats kept here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from repoctx.store import Store
from repoctx.trees import BY_FAMILY

from .walk import BROKEN_SYMLINK, SPECIAL_FILE, UNDECODABLE_NAME, Walk

RACY_NS = 2_000_000_000
"""How old a directory's ctime must be, against the walk's start, to be trusted."""

_STABLE_SKIPS = frozenset({SPECIAL_FILE, UNDECODABLE_NAME, BROKEN_SYMLINK})
"""Skip reasons that a saved walk can repeat: each needs a directory change to change."""

STRUCTURAL = BY_FAMILY["file"].name


@dataclass(frozen=True, slots=True)
class Settled:
    """What a pass over an unchanged tree reports: the files, the skips, the binaries."""

    scanned: int
    skipped: tuple[tuple[str, str], ...]
    binary: tuple[str, ...]
    """Walked files the store holds as known binaries, in path order."""


def _name(store: Store) -> str:
    return f"walk-cache/{store.repo_id}"


def save(store: Store, root: Path, found: Walk, binary: list[str], scope: tuple,
         generation: int, started_ns: int) -> None:
    """Keep ``found`` (a walk that left nothing to do) for the next pass, if it can be trusted.

    ``generation`` is what the structural tree's generation is if the store is the one
    the pass compared with the walk and then wrote: the generation read before the
    comparison plus the pass's own structural batches. Generations only grow, so a
    writer that slipped in anywhere makes every later recheck fail.
    ``scope`` is whatever else decides what a pass does.
    """
    racy = started_ns - RACY_NS
    if found.followed_links or any(s.reason not in _STABLE_SKIPS for s in found.skipped) or any(
            ctime >= racy for _, ctime in found.ctimes):
        return  # an older saved walk stays, and fails its recheck on the changed stat
    files = found.files  # one entry each in three parallel lists: cheap to unpack
    value = {"root": os.path.realpath(root), "scope": list(scope), "generation": generation,
             "watched": [p for p, _ in found.ctimes], "ctimes": [c for _, c in found.ctimes],
             "paths": [f.path for f in files], "sizes": [f.size for f in files],
             "mtimes": [f.mtime_ns for f in files],
             "skipped": [[s.path, s.reason] for s in found.skipped], "binary": binary}
    with store.batch() as batch:
        batch.put_local(_name(store), value)


def recheck(store: Store, root: Path, scope: tuple) -> Settled | None:
    """The saved walk if every stat still matches and the store is unchanged, else None."""
    saved = store.trees.get_local(_name(store))
    real = os.path.realpath(root)
    if (saved is None or saved["root"] != real or saved["scope"] != list(scope)
            or saved["generation"] != store.trees.generation(STRUCTURAL)):
        return None
    base = real + "/"
    stat = os.stat
    try:
        for rel, ctime in zip(saved["watched"], saved["ctimes"], strict=True):
            if stat(base + rel if rel else real).st_ctime_ns != ctime:
                return None
        for path, size, mtime in zip(saved["paths"], saved["sizes"], saved["mtimes"],
                                     strict=True):
            info = stat(base + path)
            if info.st_mtime_ns != mtime or info.st_size != size:
                return None
    except OSError:
        return None  # something vanished: the walk will say what
    return Settled(len(saved["paths"]), tuple(map(tuple, saved["skipped"])),
                   tuple(saved["binary"]))
