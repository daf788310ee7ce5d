"""trees/backup — a compact, verified copy of a store's LMDB environment.

Invariants:
- the copy is taken inside one read transaction, whose per-tree record counts are the
  ones the copy is checked against (a writer running meanwhile changes neither);
- a compact copy's map is exactly its data, so the copy is reopened with a map derived
  from the copied data file's size plus headroom before anything is written to it
  (deleting one key from a sympy-sized copy hit ``MapFullError``);
- store-local names the caller drops (the replica id) are gone from the copy, and
  every named tree holds as many records as the source's did;
- the copy is built in a temporary directory beside ``dest`` and renamed into place
  only once verified: on any failure nothing is left at ``dest`` or beside it. A caller
  whose environment lives in a subdirectory of what it backs up (the store's ``lmdb/``)
  passes ``subdir``, so the whole of ``dest`` is staged and renamed at once.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import lmdb

from repoctx.errors import StoreIOError

from .data_file import DATA_FILE
from .lmdb_env import MAX_DBS, lmdb_errors
from .spec import LOCAL_TREE

HEADROOM = 64 << 20
"""Map space the copy gets beyond its data file (sparse: address space, not disk)."""


@dataclass(frozen=True, slots=True)
class BackupReport:
    """A verified copy: where it is, its records per tree and its data file's size."""

    path: Path
    records: dict[str, int]
    bytes: int


def copy_map_size(data_bytes: int) -> int:
    """The map size to open a copy whose data file has ``data_bytes``."""
    return data_bytes + max(data_bytes // 2, HEADROOM)


def backup(env: lmdb.Environment, dbs: Mapping[str, object], dest: Path,
           drop_local: Sequence[str] = (), subdir: str = "") -> BackupReport:
    """Copy ``env`` compactly into ``dest / subdir`` (``dest`` a new directory), without
    the store-local names ``drop_local``, and verify the copy; raises ``StoreIOError``
    (nothing left)."""
    if dest.exists():
        raise StoreIOError(f"{dest} exists; a backup writes a new directory")
    import shutil  # not at the top: every store open imports this module

    work = dest.parent / f".{dest.name}.tmp-{os.getpid()}"
    try:
        with lmdb_errors():
            shutil.rmtree(work, ignore_errors=True)  # a killed backup of this pid's
            copy = work / subdir
            copy.mkdir(parents=True)
            with env.begin() as txn:
                expected = _counts(txn, dbs)
                dropped = [n for n in drop_local
                           if txn.get(n.encode(), db=dbs[LOCAL_TREE]) is not None]
                env.copy(str(copy), compact=True, txn=txn)
            expected[LOCAL_TREE] -= len(dropped)
            found = _finish(copy, list(dbs), drop_local, expected)
            os.rename(work, dest)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return BackupReport(dest / subdir, found, (dest / subdir / DATA_FILE).stat().st_size)


def _counts(txn: lmdb.Transaction, dbs: Mapping[str, object]) -> dict[str, int]:
    return {name: txn.stat(db)["entries"] for name, db in dbs.items()}


def _finish(path: Path, names: list[str], drop_local: Sequence[str],
            expected: dict[str, int]) -> dict[str, int]:
    """Open the copy with room to write, drop ``drop_local``, and check it; returns its
    records per tree."""
    size = (path / DATA_FILE).stat().st_size
    copy = lmdb.open(str(path), map_size=copy_map_size(size), max_dbs=MAX_DBS, subdir=True,
                     readahead=False)
    try:
        dbs = {name: copy.open_db(name.encode(), create=False) for name in names}
        with copy.begin(write=True, db=dbs[LOCAL_TREE]) as txn:
            for name in drop_local:
                txn.delete(name.encode())
        with copy.begin() as txn:
            found = _counts(txn, dbs)
            kept = [n for n in drop_local if txn.get(n.encode(), db=dbs[LOCAL_TREE]) is not None]
    finally:
        copy.close()
    _verify(path, found, expected, kept)
    (path / "lock.mdb").unlink(missing_ok=True)  # the copy's readers make their own
    return found


def _verify(path: Path, found: dict[str, int], expected: dict[str, int], kept: list[str],
            ) -> None:
    if kept:
        raise StoreIOError(f"the backup at {path} still holds {', '.join(kept)}; "
                           "nothing was written")
    wrong = [f"{name}: {found.get(name)} records, the store has {n}"
             for name, n in expected.items() if found.get(name) != n]
    if wrong:
        raise StoreIOError("the backup does not match the store (" + "; ".join(wrong)
                           + "); nothing was written, run `repoctx backup` again")
