"""reconcile/walk_cache — the last settled walk, so an unchanged tree is proven by stat alone.

A pass that leaves nothing to do saves what it walked: every directory's ctime, every
file's size and mtime, the ignore files it read. The next pass re-stats exactly those.
If every stat matches and nobody has written the structural tree since (its generation,
which any writer in any process moves), the tree on disk is the one the store already
holds and the pass ends there: no listing, no ignore matching, no record decoding.

When something changed, the saved walk still saves work: a directory whose ctime (and
its ignore files' ctimes, and those of every directory above) still match is listed from
it by stat'ing its files (``Saved.listings``), and while the generation matches, a file
whose stat is the saved one is known settled without decoding its node
(``Saved.settled_stats``). So an edit costs about a no-op plus the edited file.

Why ctimes for directories and ignore files: adding, removing or renaming an entry, a
write, or a chmod changes them; a write inside a listed file does not change its
directory, and the file's own stat catches that. A directory changed in the same clock
tick as its stat would keep its ctime, so a ctime within ``RACY_NS`` of the walk's start
is saved as ``UNTRUSTED`` and never matches (git's "racy clean" rule; it assumes the file
system's clock is not behind this one). A walk that followed a symlink or could not look
everywhere is not saved: those depend on more than the stats kept here.
"""

from __future__ import annotations

import os
import sys
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from repoctx.reconcile.nodes.file_node import STRUCTURAL
from repoctx.store import Store

if TYPE_CHECKING:  # the walk is imported when a pass walks: a settled no-op does not
    from repoctx.reconcile.walk import Listing, Walk

RACY_NS = 2_000_000_000
"""How old a directory's ctime must be, against the walk's start, to be trusted."""

UNTRUSTED = -1
"""Saved in place of a ctime too recent to trust: no stat ever matches it."""

def _stable_skips() -> frozenset[str]:
    """Skip reasons that a saved walk can repeat: each needs a directory change to change."""
    from repoctx.reconcile.walk import BROKEN_SYMLINK, SPECIAL_FILE, UNDECODABLE_NAME

    return frozenset({SPECIAL_FILE, UNDECODABLE_NAME, BROKEN_SYMLINK})


FORMAT = 2
"""2: the walk in columns (``_NAMES``, ``_INTEGERS``), each one string or one run of
64-bit integers, which a no-op ``repoctx index`` decodes in a fraction of the time of
msgpack lists of 7k paths and 14k integers. Saved under its own name
(``_name``), so a repoctx of another format never reads it; a saved walk that does not
unpack is not loaded (the pass walks and saves one afresh)."""

_NAMES = ("watched", "paths")
"""Columns of relative paths, stored NUL-separated (no path holds a NUL)."""
_INTEGERS = ("ctimes", "sizes", "mtimes")
"""Columns of integers, stored as little-endian signed 64-bit runs."""


def _pack_names(names: list[str]) -> str:
    return "\0".join(names)


def _unpack_names(packed: str, count: int) -> list[str]:
    names = packed.split("\0") if count else []
    if len(names) != count:
        raise ValueError(f"{len(names)} names where {count} were saved")
    return names


def _pack_integers(values: list[int]) -> bytes:
    packed = array("q", values)
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.tobytes()


def _unpack_integers(packed: bytes) -> array:
    values = array("q")
    values.frombytes(packed)
    if sys.byteorder == "big":
        values.byteswap()
    return values


@dataclass(frozen=True, slots=True)
class Settled:
    """What a pass over an unchanged tree reports: the files, the skips, the binaries."""

    scanned: int
    skipped: tuple[tuple[str, str], ...]
    binary: tuple[str, ...]
    """Walked files the store holds as known binaries, in path order."""


def _name(store: Store) -> str:
    return f"walk-cache-{FORMAT}/{store.repo_id}"


def _older_name(store: Store) -> str:
    """Where format 1 was saved: a repoctx of that format finds nothing there once this
    one saves (it walks, and saves its own), instead of misreading format 2."""
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
    stable = _stable_skips()
    if found.followed_links or any(s.reason not in stable for s in found.skipped):
        return  # an older saved walk stays, and fails its recheck on the changed stat
    racy = started_ns - RACY_NS
    files = found.files  # one entry each in parallel columns: cheap to unpack
    value = {"format": FORMAT, "root": os.path.realpath(root), "scope": list(scope),
             "generation": generation, "watchedCount": len(found.ctimes),
             "watched": _pack_names([p for p, _ in found.ctimes]),
             "ctimes": _pack_integers([UNTRUSTED if c >= racy else c for _, c in found.ctimes]),
             "pathsCount": len(files), "paths": _pack_names([f.path for f in files]),
             "sizes": _pack_integers([f.size for f in files]),
             "mtimes": _pack_integers([f.mtime_ns for f in files]),
             "skipped": [[s.path, s.reason] for s in found.skipped], "binary": binary}
    with store.batch() as batch:
        batch.put_local(_name(store), value)
        batch.delete_local(_older_name(store))


@dataclass(frozen=True, slots=True)
class Saved:
    """The saved walk of this root and scope; ``current`` if the store is still the one
    the walk was compared with (no structural write since). ``value`` holds the columns
    unpacked: ``watched`` and ``paths`` lists, ``ctimes``, ``sizes`` and ``mtimes``
    integer arrays."""

    value: dict
    current: bool

    def settled_stats(self) -> dict[str, tuple[int, int]]:
        """Path -> ``(size, mtime_ns)`` of every file the store held settled, if current.

        A file whose walked stat equals its entry here is unchanged and lacks nothing,
        without decoding its node.
        """
        if not self.current:
            return {}
        value = self.value
        return dict(zip(value["paths"], zip(value["sizes"], value["mtimes"], strict=True),
                        strict=True))

    def listings(self) -> dict[str, Listing]:
        """Directory path -> what the saved walk found in it, for ``walk(previous=...)``."""
        from repoctx.reconcile.walk import IGNORE_FILES, Listing, Skipped

        value = self.value
        ctimes: dict[str, int] = {}
        ignores: dict[str, list[tuple[str, int]]] = {}
        subdirs: dict[str, list[str]] = {}
        for rel, ctime in zip(value["watched"], value["ctimes"], strict=True):
            parent, _, name = rel.rpartition("/")
            if name in IGNORE_FILES:  # a directory of that name fails its reuse, and is listed
                ignores.setdefault(parent, []).append((name, ctime))
            else:
                ctimes[rel] = ctime
                if rel:
                    subdirs.setdefault(parent, []).append(name)
        files: dict[str, list[str]] = {}
        for path in value["paths"]:
            parent, _, name = path.rpartition("/")
            files.setdefault(parent, []).append(name)
        skipped: dict[str, list[Skipped]] = {}
        for path, reason in value["skipped"]:
            skipped.setdefault(path.rpartition("/")[0], []).append(Skipped(path, reason))
        return {rel: Listing(ctime, tuple(sorted(ignores.get(rel, ()),
                                                 key=lambda i: IGNORE_FILES.index(i[0]))),
                             tuple(files.get(rel, ())), tuple(subdirs.get(rel, ())),
                             tuple(skipped.get(rel, ())))
                for rel, ctime in ctimes.items()}


def walk_scope(store: Store, max_depth: int, max_files: int,
               excludes: tuple[tuple[str, int, int], ...]) -> list:
    """What besides the tree decides what a walk lists: its bounds, the store it skips
    and git's exclude files (each ``(path, ctime, size)``: editing one must re-walk). The
    first part of a pass's scope, so a reader that walks alone can reuse the listings."""
    return [max_depth, max_files, str(store.path.resolve()), [list(f) for f in excludes]]


def load(store: Store, root: Path, scope: tuple) -> Saved | None:
    """The walk a settled pass saved for ``root`` under ``scope``, if any."""
    saved = _load(store, root)
    if saved is None or saved.get("scope") != list(scope):
        return None
    return Saved(saved, saved["generation"] == store.trees.generation(STRUCTURAL))


def listings_for(store: Store, root: Path, walk: list) -> dict[str, Listing] | None:
    """``Saved.listings`` of the walk saved for ``root`` by a pass that walked as
    ``walk`` (``walk_scope``) would, whatever it projected: for a walk outside a pass
    (``changed``'s view of the working tree), whose unchanged directories then cost a stat
    of their files. None when there is none."""
    saved = _load(store, root)
    scope = None if saved is None else saved.get("scope")
    if not isinstance(scope, list) or not scope or scope[0] != walk:
        return None
    return Saved(saved, False).listings()


def walk_again(store: Store, root: Path) -> Walk:
    """The walk of ``root`` that a pass of the default bounds makes, each directory that
    is unchanged since the saved walk (``listings_for``) listed by a stat of its files:
    what a reader outside a pass (``changed``) sees the working tree as, at a fraction of
    a full walk's cost (Django: ~70 ms against ~400 ms)."""
    from repoctx.reconcile.git_excludes import exclude_files
    from repoctx.reconcile.walk import DEFAULT_DEPTH, DEFAULT_FILES, walk

    excludes = exclude_files(os.path.realpath(root))
    previous = listings_for(store, root, walk_scope(store, DEFAULT_DEPTH, DEFAULT_FILES,
                                                    excludes))
    return walk(root, store_dir=store.path, previous=previous, excludes=excludes)


def _load(store: Store, root: Path) -> dict | None:
    """The saved walk of ``root`` with its columns unpacked, if it is one this version
    saved whole."""
    saved = store.trees.get_local(_name(store))
    try:  # a value that is not a walk this version saved whole: the pass walks afresh
        if (saved["format"] != FORMAT or saved["root"] != os.path.realpath(root)
                or not isinstance(saved["generation"], int)):
            return None
        for column in _NAMES:
            saved[column] = _unpack_names(saved[column], saved[f"{column}Count"])
        for column in _INTEGERS:
            saved[column] = _unpack_integers(saved[column])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    if (len(saved["ctimes"]) != len(saved["watched"])
            or not len(saved["sizes"]) == len(saved["mtimes"]) == len(saved["paths"])):
        return None
    return saved


def recheck(saved: Saved) -> Settled | None:
    """The saved walk if it is current and every stat still matches, else None."""
    if not saved.current:
        return None
    value = saved.value
    real = value["root"]
    base = real + "/"
    stat = os.stat
    try:
        for rel, ctime in zip(value["watched"], value["ctimes"], strict=True):
            if stat(base + rel if rel else real).st_ctime_ns != ctime:
                return None
        for path, size, mtime in zip(value["paths"], value["sizes"], value["mtimes"],
                                     strict=True):
            info = stat(base + path)
            if info.st_mtime_ns != mtime or info.st_size != size:
                return None
    except OSError:
        return None  # something vanished: the walk will say what
    return Settled(len(value["paths"]), tuple(map(tuple, value["skipped"])),
                   tuple(value["binary"]))
