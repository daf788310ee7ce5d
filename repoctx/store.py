"""store — the store handle: a directory, its LMDB trees, its replica and its clock.

``open_store(path)`` creates or opens ``<path>/.repoctx/`` (``create=False`` only opens,
and a repository that has none is a ``StoreMissingError``; ``readonly=True`` opens for
reading on a read-only disk or another user's store). A new store directory ignores
itself for git (a ``.gitignore`` holding ``*``). The store records its
format version and refuses one written by a newer format; it keeps its replica id and
the last clock tick in the store-local tree, writing the tick inside every batch so
ticks never go backwards across restarts. A backup is a compact copy whose replica id
is dropped, so the restored store takes a fresh one (reusing dots would corrupt merges).
"""

from __future__ import annotations

import errno
import os
import re
import threading
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from repoctx.crdt import Clock
from repoctx.crdt.record import Record
from repoctx.errors import StoreFormatError, StoreMissingError, StoreReadOnlyError
from repoctx.git import config_value, git_dir
from repoctx.trees import (
    DATA_FILE,
    DEFAULT_MAP_SIZE,
    TREES,
    Batch,
    Snapshot,
    Trees,
    TreeStats,
    check_repo_id,
    make_key,
)

if TYPE_CHECKING:
    from repoctx.trees import BackupReport

FORMAT_VERSION = 2
"""1: plain msgpack records. 2: records of some trees may be stored compressed
(``trees.codec.pack``); format 1 records are still read, and the first write opening of
a format 1 store marks it 2, so an older repoctx refuses it instead of misreading it."""
STORE_DIRNAME = ".repoctx"
LMDB_DIRNAME = "lmdb"


@dataclass
class Store:
    """An open store: its trees, the repository it serves, its replica id and clock."""

    path: Path
    """The store directory (``<repo>/.repoctx`` by default)."""
    trees: Trees
    repo_id: str
    replica_id: str
    clock: Clock = field(default_factory=Clock)
    _tick_lock: threading.Lock = field(default_factory=threading.Lock, repr=False,
                                       compare=False)
    opened_ino: int = field(default=0, repr=False, compare=False)
    """The inode of ``<path>/lmdb`` when it was opened (0: not known)."""

    def key(self, family: str = "", rest: str = "") -> str:
        """A key of this store's repository."""
        return make_key(self.repo_id, family, rest)

    def tick(self) -> int:
        """A fresh tick of this replica's clock (unique across threads: tools run on a pool)."""
        with self._tick_lock:
            return self.clock.now()

    def __post_init__(self) -> None:
        self.trees.before_commit = self._persist_clock

    def _persist_clock(self, batch: Batch) -> None:
        batch.put_local("clock", self.clock.last)

    def batch(self) -> AbstractContextManager[Batch]:
        """A write transaction (it also persists the clock)."""
        return self.trees.batch()

    def merge(self, key: str, delta: Record) -> None:
        """Read-merge-write one record in its own transaction."""
        self.trees.merge(key, delta)

    def replaced(self) -> bool:
        """True when ``<path>/lmdb`` is no longer the directory this handle opened (a
        repair swapped a rebuilt one in): its writes would reach the discarded copy."""
        if not self.opened_ino:
            return False
        try:
            return os.stat(self.path / LMDB_DIRNAME).st_ino != self.opened_ino
        except OSError:
            return True

    def get(self, key: str) -> Record | None:
        """The visible record at ``key``, or None."""
        return self.trees.get(key)

    def snapshot(self, now_ms: int | None = None) -> Snapshot:
        """A consistent read view (a context manager)."""
        return self.trees.snapshot(now_ms)

    def repo_ids(self) -> list[str]:
        """Repositories that have a root node in this store."""
        with self.trees.snapshot() as snap:
            # Keys only: a damaged file node must not stop the store from opening (the
            # tools name it when they read it; `repoctx check` lists them all).
            return sorted(set(snap.heads(TREES[0], "repo/")))

    def stats(self) -> list[TreeStats]:
        """Records and bytes per tree."""
        return self.trees.stats()

    def gc(self, now_ms: int | None = None) -> dict[str, int]:
        """Compact every tree now; returns records reaped per tree."""
        from repoctx.trees import compact

        return compact(self.trees, now_ms=now_ms)

    def backup(self, dest: Path) -> BackupReport:
        """Write a compact, verified copy of this store into ``dest`` (a new store
        directory), without the replica id: the restored store must author new dots.
        Built beside ``dest`` and renamed into place, so a failure leaves nothing."""
        return self.trees.backup(dest, drop_local=("replica",), subdir=LMDB_DIRNAME)

    def close(self) -> None:
        """Close the store."""
        self.trees.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(path: str | Path, repo_id: str | None = None, replica_id: str | None = None, *,
               store_dir: str | Path | None = None, map_size: int = DEFAULT_MAP_SIZE,
               readonly: bool = False, create: bool = True) -> Store:
    """Create or open the store of the repository at ``path``.

    ``repo_id`` defaults to the store's only repository, else to a slug of the
    ``origin`` remote or the directory name; ``replica_id`` defaults to the stored one
    (a random one on creation). ``store_dir`` overrides ``<path>/.repoctx``. Without
    ``create`` (and always when ``readonly``) a missing store is a ``StoreMissingError``.
    """
    root = Path(path).resolve()
    if repo_id:
        check_repo_id(repo_id)  # before anything is created
    directory = store_path(root, store_dir)
    if (readonly or not create) and not has_store(directory):
        raise StoreMissingError(missing_message(root))
    if not readonly:
        _writable(directory)
    trees = Trees(directory / LMDB_DIRNAME, map_size=map_size, readonly=readonly)
    try:
        _check_format(trees, directory, readonly)
        replica = _replica(trees, replica_id, readonly)
        store = Store(directory, trees, "_", replica, Clock(last=trees.get_local("clock", 0)),
                      opened_ino=os.stat(directory / LMDB_DIRNAME).st_ino)
        store.repo_id = check_repo_id(repo_id) if repo_id else _default_repo(store, root)
        return store
    except BaseException:
        trees.close()
        raise


def store_path(root: Path, store_dir: str | Path | None = None) -> Path:
    """The store directory of the repository at ``root``: ``store_dir``, else ``root/.repoctx``."""
    return Path(store_dir).resolve() if store_dir is not None else root / STORE_DIRNAME


def enclosing_root(start: Path) -> Path:
    """The repository a command run in ``start`` means, found as git finds its root: the
    nearest folder at or above ``start`` holding a store, else the nearest holding a
    ``.git``, else ``start`` itself (so a subfolder never gets a second, partial store)."""
    here = start.resolve()
    chain = [here, *here.parents]
    for folder in chain:
        if has_store(folder / STORE_DIRNAME):
            return folder
    return next((folder for folder in chain if (folder / ".git").exists()), here)


def has_store(directory: Path) -> bool:
    """True when ``directory`` holds a store's LMDB data file."""
    return (directory / LMDB_DIRNAME / DATA_FILE).is_file()


def missing_message(root: Path) -> str:
    """The one message for a repository that was never indexed."""
    return f"no index for {root}: run `repoctx index {root}`"


def can_write(directory: Path) -> bool:
    """True when this process may write the store in ``directory`` (disk and permissions)."""
    lmdb_dir = directory / LMDB_DIRNAME
    files = [p for p in (lmdb_dir, lmdb_dir / DATA_FILE, lmdb_dir / "lock.mdb") if p.exists()]
    try:
        read_only_disk = bool(os.statvfs(lmdb_dir).f_flag & os.ST_RDONLY)
    except OSError:
        return False
    return not read_only_disk and all(os.access(p, os.W_OK) for p in files)


def _writable(directory: Path) -> None:
    """Make sure the store directory can be written, and keeps itself out of git."""
    lmdb_dir = directory / LMDB_DIRNAME
    try:
        lmdb_dir.mkdir(parents=True, exist_ok=True)
        ignore = directory / ".gitignore"
        if not ignore.exists():  # the store never shows in `git status`, nor in a commit
            ignore.write_text("# repoctx store: never committed\n*\n", encoding="utf-8")
    except OSError as exc:
        raise StoreReadOnlyError(_cannot_write(directory, exc.strerror or str(exc))) from None
    if not can_write(directory):
        read_only = os.statvfs(lmdb_dir).f_flag & os.ST_RDONLY
        raise StoreReadOnlyError(_cannot_write(
            directory, os.strerror(errno.EROFS if read_only else errno.EACCES)))


def _cannot_write(directory: Path, reason: str) -> str:
    return (f"cannot write the store at {directory} ({reason}): index a writable copy of the "
            "repository, or give --store DIR on a writable disk; the tools can still read an "
            "existing index here")


def _check_format(trees: Trees, directory: Path, readonly: bool) -> None:
    found = trees.get_local("format")
    if (found is None or found < FORMAT_VERSION) and not readonly:
        with trees.batch() as b:
            b.put_local("format", FORMAT_VERSION)
    elif found is not None and found > FORMAT_VERSION:
        raise StoreFormatError(
            f"the store at {directory} has format {found}, newer than format "
            f"{FORMAT_VERSION} that this repoctx reads; upgrade repoctx to open it"
        )


def _replica(trees: Trees, wanted: str | None, readonly: bool) -> str:
    stored = trees.get_local("replica")
    replica = wanted or stored
    if not replica:
        import secrets  # only a new store draws an id: not every command pays for it

        replica = secrets.token_hex(6)
    if "\x00" in replica:
        raise StoreFormatError("a replica id cannot contain NUL")
    if replica != stored and not readonly:
        with trees.batch() as b:  # a new id needs no migration: dots just carry it
            b.put_local("replica", replica)
    return replica


def _default_repo(store: Store, root: Path) -> str:
    known = store.repo_ids()
    derived = default_repo_id(root)
    if len(known) == 1 and derived not in known:
        return known[0]
    return derived


def default_repo_id(root: Path) -> str:
    """A readable id: ``owner-name`` of the ``origin`` remote's URL (its last two path
    segments), else the directory name (also for an origin that is a local path)."""
    url = _origin_url(root)
    if not url or _LOCAL_ORIGIN.match(url.strip()):
        return _slug(root.name or "repo")
    url = re.sub(r"^[a-z+]+://", "", url.strip().lower())
    url = re.sub(r"^[^@/]+@", "", url).replace(":", "/")
    url = re.sub(r"\.git/?$", "", url).strip("/")
    return _slug("-".join(url.split("/")[1:][-2:]) or url)


_LOCAL_ORIGIN = re.compile(r"(?:file://|[/~.]|[A-Za-z]:[\\/])")
"""An origin that is a path on this machine (``/src/x``, ``../x``, ``file:///x``, ``C:\\x``)."""


def _origin_url(root: Path) -> str | None:
    # only a store opened without a repository id reads it
    return config_value([git_dir(root) / "config"], 'remote "origin"', "url")


def _slug(text: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:128]
    return slug or "repo"
