"""reconcile/walk — the files of a repository as the reconcile sees them, and what was left out.

Invariants:
- reads directory listings, `stat`s and ignore files only; never another file's bytes;
- paths are relative, POSIX, and sorted (code-point order, which is UTF-8 byte order);
- `.git` (directory or file), any `.repoctx` store and the store directory are never
  entered or listed;
- inside git, `.git/info/exclude` and `core.excludesFile` apply from the root, weaker
  than any ignore file of the tree (`git_excludes`);
- `.gitignore`, `.contextpullignore` and `.repoctxignore` apply at every level, each
  relative to its own directory, with git's rules: the deepest matching pattern wins, a
  later file of the same directory overrides an earlier one (in that name order, so
  `.repoctxignore` has the last word, as in `contextpull/walk`), and a file inside an
  ignored directory cannot be re-included; ignore files themselves are listed;
- the walk never leaves the root: a symlink resolving outside it is skipped; a symlink to
  a file inside it is listed under the link's path with the target's size and mtime; a
  symlinked directory inside it is walked after every real directory, once per real
  target, so no directory is walked twice and no cycle is followed;
- a name that is not valid UTF-8 is skipped (`undecodable-name`, shown with U+FFFD), so
  every listed path encodes cleanly into store keys;
- bounds and failures are reported in `Walk.skipped`, never raised; only a root that is
  not a readable directory raises `ReconcileError` (an empty listing would otherwise
  read as "every file was removed").
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final

from repoctx.errors import ReconcileError
from repoctx.reconcile.git_excludes import ExcludeFile, exclude_files, exclude_lines

if TYPE_CHECKING:  # loaded when ignore rules are read: a settled no-op never reads them
    import pathspec

MAX_DEPTH: Final = "max-depth"
MAX_FILES: Final = "max-files"
SYMLINK_OUTSIDE_ROOT: Final = "symlink-outside-root"
SYMLINK_LOOP: Final = "symlink-loop"
SYMLINK_DUPLICATE: Final = "symlink-duplicate"
BROKEN_SYMLINK: Final = "broken-symlink"
UNREADABLE_DIR: Final = "unreadable-dir"
UNREADABLE_FILE: Final = "unreadable-file"
UNREADABLE_IGNORE_FILE: Final = "unreadable-ignore-file"
SPECIAL_FILE: Final = "special-file"
UNDECODABLE_NAME: Final = "undecodable-name"

IGNORE_FILES: Final = (".gitignore", ".contextpullignore", ".repoctxignore")
NEVER_ENTERED: Final = frozenset({".git", ".repoctx"})
"""Git's directory and any repoctx store (the default store name), wherever the active
store is: another store's files are never repository content."""
"""Ignore-file names read in every directory, lowest precedence first."""

BINARY_SNIFF_BYTES: Final = 8192
"""How much of a file's head `is_binary` looks at."""

_GROUP: Final = re.compile(r"\(\?P<\w+>")
_INCOMPLETE: Final = frozenset({MAX_DEPTH, UNREADABLE_DIR, UNREADABLE_FILE})


@dataclass(frozen=True, slots=True)
class WalkedFile:
    """A file the walk found: relative POSIX path, size in bytes, mtime in nanoseconds."""

    path: str
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True, order=True)
class Skipped:
    """Something the walk did not list, and why (`reason` is one of this module's reasons)."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class Walk:
    """The result of `walk`: files sorted by path, and the bound hits and failures.

    Ignored files are not listed in `skipped`; everything else left out is, once.
    """

    files: tuple[WalkedFile, ...]
    skipped: tuple[Skipped, ...]
    ctimes: tuple[tuple[str, int], ...] = ()
    """Every directory listed ('' is the root) and ignore file read, with its ctime_ns
    taken before reading it: what the listing depends on beyond the files' own stats."""
    followed_links: bool = False
    """True if a symlink was followed (its target can change while no listing does)."""
    ignored: int = field(default=0, compare=False)
    """Files and directories the ignore rules left out (an ignored directory counts once,
    its contents not at all), in the directories listed afresh: one listed from an
    earlier walk (``previous``) adds none, so it takes no part in comparing walks."""

    @property
    def truncated(self) -> bool:
        """True if the walk stopped at `max_files`; files past the cut were not seen."""
        return any(skip.reason == MAX_FILES for skip in self.skipped)

    def covers(self, path: str) -> bool:
        """True if the walk looked where `path` would be.

        Only then does `path`'s absence from `files` mean the file is gone or ignored; a
        path under a directory cut by `max-depth` or unreadable, a file whose `stat`
        failed, or any path of a truncated walk is not covered.
        """
        if self.truncated:
            return False
        return not any(
            skip.reason in _INCOMPLETE
            and (path == skip.path or path.startswith(skip.path + "/"))
            for skip in self.skipped
        )


@dataclass(frozen=True, slots=True)
class Listing:
    """What an earlier walk found in one directory, reusable while nothing in it changed.

    Valid while the directory's ctime is ``ctime`` and each of its ignore files still has
    the ctime given: adding, removing or renaming an entry, or rewriting an ignore file,
    moves one of them. Names are in name order; ``skipped`` is the directory's own skips.
    """

    ctime: int
    ignore_files: tuple[tuple[str, int], ...]
    files: tuple[str, ...]
    subdirs: tuple[str, ...]
    skipped: tuple[Skipped, ...]


def is_binary(head: bytes) -> bool:
    """True if `head` (a file's first bytes) holds a NUL byte in its first 8 KiB."""
    return b"\0" in head[:BINARY_SNIFF_BYTES]


@dataclass(frozen=True, slots=True)
class IgnoreRules:
    """The ignore patterns of one directory; `base` is its relative path plus `/` (or '').
    A chain of them, root first, is what `ignored` judges a path by.

    `any_match` is one regex alternating every pattern: most paths match none, and one
    regex call rules them out where `check_file` would try each pattern in turn.
    """

    base: str
    spec: pathspec.GitIgnoreSpec
    any_match: re.Pattern[str] | None


def _any_match(spec: pathspec.GitIgnoreSpec) -> re.Pattern[str] | None:
    sources = [getattr(pattern, "regex", None) for pattern in spec.patterns]
    if any(not isinstance(source, re.Pattern) for source in sources if source is not None):
        return None  # an unexpected pattern type: let check_file decide every path
    alternatives = [_GROUP.sub("(?:", source.pattern) for source in sources if source is not None]
    try:
        return re.compile("|".join(f"(?:{alternative})" for alternative in alternatives))
    except re.error:
        return None


@dataclass(frozen=True, slots=True)
class _Dir:
    """A directory to list: where it is, where it really is, and the rules above it."""

    abs_path: str
    rel_path: str  # '' for the root
    real_path: str
    depth: int
    rules: tuple[IgnoreRules, ...]
    reusable: bool = True
    """False once an ignore file above changed since the earlier walk: its listings
    were filtered by other rules."""

    @property
    def prefix(self) -> str:
        """What the relative paths of its entries start with (``''`` at the root)."""
        return self.rel_path + "/" if self.rel_path else ""


@dataclass
class _Walker:
    """The mutable state of one walk."""

    root: str
    store: str | None
    max_depth: int
    max_files: int
    files: list[WalkedFile] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    visited: set[str] = field(default_factory=set)
    linked: list[_Dir] = field(default_factory=list)
    full: bool = False
    ctimes: list[tuple[str, int]] = field(default_factory=list)
    followed_links: bool = False
    previous: Mapping[str, Listing] = field(default_factory=dict)
    ignored: int = 0

    def run(self, base: tuple[IgnoreRules, ...] = ()) -> Walk:
        """Walk the real tree under the ``base`` rules, then the symlinked directories it
        found."""
        self._walk_from(_Dir(self.root, "", self.root, 0, base))
        while self.linked and not self.full:
            self.linked.sort(key=lambda linked: linked.rel_path, reverse=True)
            self._walk_from(self.linked.pop())
        self.files.sort(key=lambda walked: walked.path)
        return Walk(tuple(self.files), tuple(sorted(self.skipped)), tuple(sorted(self.ctimes)),
                    self.followed_links, self.ignored)

    def _walk_from(self, start: _Dir) -> None:
        pending = [start]
        while pending and not self.full:
            directory = pending.pop()
            if directory.real_path in self.visited:  # reached again through a symlink
                self.skipped.append(Skipped(directory.rel_path, SYMLINK_DUPLICATE))
                continue
            self.visited.add(directory.real_path)
            subdirs = self._list(directory)
            pending.extend(reversed(subdirs))  # depth-first, in name order

    def _list(self, directory: _Dir) -> list[_Dir]:
        """List one directory: record its files, return its subdirectories to walk."""
        try:
            ctime_ns = os.stat(directory.abs_path).st_ctime_ns
            known = self.previous.get(directory.rel_path) if directory.reusable else None
            if known is not None and known.ctime == ctime_ns:
                subdirs = self._reuse(directory, known)
                if subdirs is not None:
                    return subdirs
            with os.scandir(directory.abs_path) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
            self.ctimes.append((directory.rel_path, ctime_ns))
        except OSError:
            self.skipped.append(Skipped(directory.rel_path or ".", UNREADABLE_DIR))
            return []
        mark = len(self.ctimes)
        rules = self._rules(directory, entries)
        prefix = directory.prefix
        if known is None or self.ctimes[mark:] != [
                (prefix + name, ctime) for name, ctime in known.ignore_files]:
            directory = replace(directory, reusable=False)  # for the subdirectories
        subdirs: list[_Dir] = []
        for entry in entries:
            if self.full:
                break
            if entry.name in NEVER_ENTERED:
                continue
            if not entry.name.isascii() and not decodable(entry.name):
                self.skipped.append(Skipped(prefix + entry.name.encode(
                    "utf-8", "surrogateescape").decode("utf-8", "replace"), UNDECODABLE_NAME))
                continue
            self._entry(directory, entry, prefix + entry.name, rules, subdirs)
        return subdirs

    def _reuse(self, directory: _Dir, known: Listing) -> list[_Dir] | None:
        """List an unchanged directory from ``known``, stat'ing only its files; None if an
        ignore file or a file changed under it (the caller lists it afresh)."""
        base, prefix = directory.abs_path + "/", directory.prefix
        lines: list[str] = []
        files = []
        try:
            for name, ctime in known.ignore_files:
                info = os.stat(base + name, follow_symlinks=False)
                if info.st_ctime_ns != ctime or not stat.S_ISREG(info.st_mode):
                    return None
                lines += ignore_lines(base + name)
            for name in known.files:
                info = os.stat(base + name, follow_symlinks=False)
                if not stat.S_ISREG(info.st_mode):
                    return None
                files.append(WalkedFile(prefix + name, info.st_size, info.st_mtime_ns))
        except OSError:
            return None
        if len(self.files) + len(files) > self.max_files:
            return None  # the fresh listing reports where the cut falls
        self.files += files
        self.skipped += known.skipped
        self.ctimes += [(directory.rel_path, known.ctime)] + [
            (prefix + name, ctime) for name, ctime in known.ignore_files]
        rules = self.rules_from(directory, lines)
        subdirs: list[_Dir] = []
        for name in known.subdirs:
            self._subdir(directory, base + name, prefix + name,
                         directory.real_path + "/" + name, rules, subdirs)
        return subdirs

    def _entry(self, directory: _Dir, entry: os.DirEntry[str], rel: str,
               rules: tuple[IgnoreRules, ...], subdirs: list[_Dir]) -> None:
        try:
            if entry.is_symlink():
                self._link(directory, entry, rel, rules)
            elif entry.is_dir(follow_symlinks=False):
                self._subdir(directory, entry.path, rel, directory.real_path + "/" + entry.name,
                             rules, subdirs)
            elif not self._ignored(rules, rel, False):
                self._file(rel, entry.stat(follow_symlinks=False))
        except OSError:  # vanished or unstat-able between listing and stat
            self.skipped.append(Skipped(rel, UNREADABLE_FILE))

    def _subdir(self, directory: _Dir, abs_path: str, rel: str, real: str,
                rules: tuple[IgnoreRules, ...], subdirs: list[_Dir]) -> None:
        if real == self.store or self._ignored(rules, rel, True):
            return
        if directory.depth + 1 > self.max_depth:
            self.skipped.append(Skipped(rel, MAX_DEPTH))
            return
        subdirs.append(_Dir(abs_path, rel, real, directory.depth + 1, rules,
                            directory.reusable))

    def _ignored(self, rules: tuple[IgnoreRules, ...], rel: str, is_dir: bool) -> bool:
        if ignored(rules, rel, is_dir):
            self.ignored += 1
            return True
        return False

    def _file(self, rel: str, info: os.stat_result) -> None:
        if not stat.S_ISREG(info.st_mode):
            self.skipped.append(Skipped(rel, SPECIAL_FILE))
        elif len(self.files) >= self.max_files:
            self.skipped.append(Skipped(rel, MAX_FILES))
            self.full = True
        else:
            self.files.append(WalkedFile(rel, info.st_size, info.st_mtime_ns))

    def _link(self, directory: _Dir, entry: os.DirEntry[str], rel: str,
              rules: tuple[IgnoreRules, ...]) -> None:
        """Follow a symlink that stays in the root: list a file, defer a directory."""
        self.followed_links = True
        target = os.path.realpath(entry.path)
        if target == self.store:
            return
        if not within(target, self.root):
            self.skipped.append(Skipped(rel, SYMLINK_OUTSIDE_ROOT))
            return
        try:
            info = os.stat(target)
        except OSError as exc:
            looped = exc.errno == errno.ELOOP
            self.skipped.append(Skipped(rel, SYMLINK_LOOP if looped else BROKEN_SYMLINK))
            return
        if not stat.S_ISDIR(info.st_mode):
            if not self._ignored(rules, rel, False):
                self._file(rel, info)
        elif within(directory.real_path, target):
            self.skipped.append(Skipped(rel, SYMLINK_LOOP))
        elif not self._into_skipped(target):
            self._subdir(replace(directory, reusable=False), entry.path, rel, target, rules,
                         self.linked)

    def _into_skipped(self, target: str) -> bool:
        """True if `target` lies in `.git` or the store, which no path may reach."""
        inside = target[len(self.root):].split("/")
        return not NEVER_ENTERED.isdisjoint(inside) or (
            self.store is not None and within(target, self.store))

    def _rules(self, directory: _Dir, entries: list[os.DirEntry[str]]) -> tuple[IgnoreRules, ...]:
        """The rules chain for the entries of `directory`: its parents' plus its own."""
        names = [e for e in entries if e.name in IGNORE_FILES and e.is_file(follow_symlinks=False)]
        if not names:
            return directory.rules
        names.sort(key=lambda entry: IGNORE_FILES.index(entry.name))
        return self.rules_from(directory, [line for entry in names
                                            for line in self._read_lines(directory, entry)])

    def rules_from(self, directory: _Dir, lines: list[str]) -> tuple[IgnoreRules, ...]:
        """The rules chain of `directory` given the lines of its own ignore files."""
        return chained(directory.rules, directory.prefix, lines)

    def _read_lines(self, directory: _Dir, entry: os.DirEntry[str]) -> list[str]:
        path = directory.prefix + entry.name
        try:
            self.ctimes.append((path, entry.stat(follow_symlinks=False).st_ctime_ns))
            return ignore_lines(entry.path)
        except OSError:
            self.skipped.append(Skipped(path, UNREADABLE_IGNORE_FILE))
            return []


def chained(rules: tuple[IgnoreRules, ...], prefix: str, lines: list[str],
            ) -> tuple[IgnoreRules, ...]:
    """``rules`` (a directory's parents') followed by the directory's own ignore-file
    ``lines``; ``prefix`` is its relative path plus ``/`` ('' at the root)."""
    if not lines:
        return rules
    import pathspec

    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    if not spec.patterns:
        return rules
    return (*rules, IgnoreRules(prefix, spec, _any_match(spec)))


def ignore_lines(path: str) -> list[str]:
    """The lines of an ignore file (undecodable bytes replaced); raises ``OSError``."""
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", "replace").splitlines()


def decodable(name: str) -> bool:
    """False for a name holding bytes that are not UTF-8 (kept by Python as surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def within(path: str, ancestor: str) -> bool:
    """True when ``path`` is ``ancestor`` or lies under it (both normalised, real paths)."""
    return path == ancestor or path.startswith(ancestor.rstrip("/") + "/")


def ignored(rules: tuple[IgnoreRules, ...], rel: str, is_dir: bool) -> bool:
    """Git's verdict for `rel`: the deepest directory whose patterns match decides."""
    suffix = "/" if is_dir else ""
    for level in reversed(rules):
        local = rel[len(level.base):] + suffix
        if level.any_match is not None and level.any_match.match(local) is None:
            continue
        verdict = level.spec.check_file(local).include
        if verdict is not None:
            return verdict
    return False


def real_root(root: Path) -> str:
    """The real path of ``root``; ``ReconcileError`` unless it is a readable directory."""
    real = os.path.realpath(root)
    if not os.path.isdir(real) or not os.access(real, os.R_OK | os.X_OK):
        raise ReconcileError(f"cannot walk {str(root)!r}: not a readable directory")
    return real


DEFAULT_DEPTH = 64
"""How deep a walk goes by default (``repoctx index --max-depth``)."""
DEFAULT_FILES = 200_000
"""How many files a walk lists by default (``repoctx index --max-files``)."""


def walk(root: Path, *, store_dir: Path | None, max_depth: int = DEFAULT_DEPTH,
         max_files: int = DEFAULT_FILES, previous: Mapping[str, Listing] | None = None,
         excludes: tuple[ExcludeFile, ...] | None = None) -> Walk:
    """List the files under `root` that the reconcile should see.

    `store_dir` (absolute, or relative to the working directory) is never entered.
    A directory more than `max_depth` levels below the root (the root's own entries
    are level 1) is not entered and is reported `max-depth`; the walk stops after
    `max_files` files and reports the first file past the cut as `max-files`.
    `previous` (directory path -> `Listing`, from an earlier walk of the same root with
    the same bounds and store) lets an unchanged directory be listed without reading it.
    `excludes` are git's exclude files (`git_excludes.exclude_files` of the root, read
    here when not given), the weakest rules of the root.
    Raises `ReconcileError` only if `root` is not a readable directory.
    """
    top = real_root(root)
    store = os.path.realpath(store_dir) if store_dir is not None else None
    walker = _Walker(top, store, max_depth, max_files, previous=previous or {})
    lines = exclude_lines(exclude_files(top) if excludes is None else excludes)
    return walker.run(walker.rules_from(_Dir(top, "", top, 0, ()), lines))
