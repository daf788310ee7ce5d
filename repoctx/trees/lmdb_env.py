"""trees/lmdb_env — the one LMDB environment of a store and its named databases.

Opens every named tree once when the environment opens (records never go in the
unnamed main database, which holds the names), grows the map instead of letting
``MapFullError`` reach a caller, and translates LMDB's exceptions into the store's
error hierarchy in one place (``lmdb_errors``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import lmdb

from repoctx.errors import DiskFullError, StoreBusyError, StoreFormatError, StoreIOError, disk_full

from .data_file import REPAIR_HINT, check_data_file
from .spec import LOCAL_TREE, TREES

DEFAULT_MAP_SIZE = 64 << 20
MAX_DBS = len(TREES) + 4

_CORRUPT = f"the store's LMDB file is corrupt; {REPAIR_HINT}"

# Most specific first: the first matching class decides the message.
_ERRORS: tuple[tuple[type[lmdb.Error], type[Exception], str], ...] = (
    (lmdb.MapFullError, StoreIOError, "the store's map is full"),
    (lmdb.DiskError, StoreIOError, "the disk refused a write (full or failing); free space "
     "and run again — nothing of the failed batch was written"),
    (lmdb.ReadonlyError, StoreIOError, "the store is open read-only"),
    (lmdb.LockError, StoreBusyError, "could not take the store's LMDB lock"),
    (lmdb.ReadersFullError, StoreBusyError, "too many processes are reading the store"),
    (lmdb.VersionMismatchError, StoreFormatError, "the store was written by another LMDB"),
    (lmdb.InvalidError, StoreFormatError, "the store directory does not hold an LMDB store"),
    (lmdb.IncompatibleError, StoreFormatError, "the store's databases are incompatible"),
    (lmdb.CorruptedError, StoreFormatError, _CORRUPT),
    (lmdb.PageNotFoundError, StoreFormatError, _CORRUPT),
    (lmdb.PanicError, StoreIOError, "LMDB hit a fatal error; reopen the store"),
    (lmdb.Error, StoreIOError, "LMDB error"),
)


_FULL_TEXTS = ("no space left on device", "disk quota exceeded")
_NEARLY_FULL_BYTES = 1 << 20
"""Free space below which an I/O error of a write is taken for a full disk: LMDB
reports a short write at commit as ``EIO``, not ``ENOSPC``."""


def error_for(exc: lmdb.Error, lmdb_dir: Path | None = None) -> Exception:
    """The store error that stands for an LMDB exception (``lmdb_dir``, when known,
    names the store whose disk may be full)."""
    full = _disk_full(exc, lmdb_dir)
    if full is not None:
        return full
    for cls, target, message in _ERRORS:
        if isinstance(exc, cls):
            return target(f"{message}: {exc}")
    raise AssertionError("lmdb.Error is the last entry")  # pragma: no cover


def _disk_full(exc: lmdb.Error, lmdb_dir: Path | None) -> DiskFullError | None:
    """A ``DiskFullError`` when ``exc`` is the disk holding the store running out."""
    text = str(exc).lower()
    where = lmdb_dir.parent if lmdb_dir is not None else "the store"
    if any(t in text for t in _FULL_TEXTS):
        return DiskFullError.holding(where)
    if (lmdb_dir is not None and "input/output error" in text
            and _free_bytes(lmdb_dir) < _NEARLY_FULL_BYTES):
        return DiskFullError.holding(where)
    return None


def _free_bytes(directory: Path) -> int:
    """Bytes free to this user on the disk holding ``directory`` (unknown: plenty)."""
    try:
        info = os.statvfs(directory)
    except OSError:
        return 1 << 62
    return info.f_bavail * info.f_frsize


@contextmanager
def lmdb_errors(lmdb_dir: Path | None = None) -> Iterator[None]:
    """Translate LMDB exceptions raised inside the block into store errors."""
    try:
        yield
    except lmdb.Error as exc:
        raise error_for(exc, lmdb_dir) from exc
    except OSError as exc:
        full = disk_full(exc, lmdb_dir.parent if lmdb_dir is not None else "the store")
        if full is not None:
            raise full from exc
        raise StoreIOError(f"cannot use the store files: {exc}") from exc


def open_env(path: Path, *, map_size: int = DEFAULT_MAP_SIZE, readonly: bool = False
             ) -> tuple[lmdb.Environment, dict[str, object]]:
    """Open (creating unless read-only) the environment and every named tree.

    The data file is checked before LMDB maps it: a truncated one would kill the process
    with SIGBUS on the first read past its end (``check_data_file``), and a new one is
    not created on a nearly full disk: LMDB writes its fresh lock file through a map,
    which a disk without room answers with SIGBUS too."""
    check_data_file(path)
    with lmdb_errors(path):
        if not readonly:
            path.mkdir(parents=True, exist_ok=True)
            if not (path / "lock.mdb").exists() and _free_bytes(path) < _NEARLY_FULL_BYTES:
                raise DiskFullError.holding(path.parent)
        env = open_lmdb(path, map_size, readonly)
        dbs: dict[str, object] = {}
        for name in [t.name for t in TREES] + [LOCAL_TREE]:
            if readonly:
                try:
                    dbs[name] = env.open_db(name.encode(), create=False)
                except lmdb.NotFoundError:
                    continue  # a read-only view of an older store simply lacks the tree
            else:
                dbs[name] = env.open_db(name.encode())
        return env, dbs


def open_lmdb(path: Path, map_size: int, readonly: bool) -> lmdb.Environment:
    """The environment at ``path``, opened without its named trees (errors untranslated)."""
    try:
        return lmdb.open(str(path), map_size=map_size, max_dbs=MAX_DBS, readonly=readonly,
                         subdir=True, readahead=False, lock=True)
    except (lmdb.Error, OSError):
        if not readonly:
            raise
    # A reader without write access to lock.mdb (another user's store) reads unlocked:
    # it cannot register as a reader, which only matters while a writer recycles pages.
    return lmdb.open(str(path), map_size=map_size, max_dbs=MAX_DBS, readonly=True,
                     subdir=True, readahead=False, lock=False)


def grow(env: lmdb.Environment) -> None:
    """Double the map size (LMDB files are sparse: this costs address space, not disk)."""
    with lmdb_errors():
        env.set_mapsize(env.info()["map_size"] * 2)


def adopt_size(env: lmdb.Environment) -> None:
    """Adopt a map size another process has grown the file to."""
    with lmdb_errors():
        env.set_mapsize(0)
