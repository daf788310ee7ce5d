"""trees/salvage — read what still decodes out of a damaged store, into another one.

``Salvage`` opens a store's LMDB directory read-only, without its lock file and without
trusting it: a data file LMDB cannot map safely is first copied and made mappable
(``data_file.salvage_copy``), every record read is checked (``integrity.sound_records``)
and every tree runs in its own read transaction, since a damaged page spoils the one it
is met in. ``copy_into`` merges the sound records of the named trees into an open
``Trees`` (a CRDT merge, so salvaging from several sources — the damaged store, then a
peer or a backup — unites them) and reports each record it could not read.
Knows nothing of files, symbols or memory.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lmdb

from repoctx.crdt.record import Record
from repoctx.errors import CorruptRecordError, StoreFormatError

from . import codec
from .data_file import DATA_FILE, problem, salvage_copy
from .integrity import Damage, TreeCheck, note_unreached, open_tree, sound_records
from .keys import parse_key
from .lmdb_env import MAX_DBS, lmdb_errors
from .spec import BY_NAME, LOCAL_TREE, ROOT_FAMILY, TREES
from .trees import Trees

_CHUNK = 2_000
"""Records merged per write transaction."""


@dataclass(slots=True)
class Copied:
    """What ``copy_into`` took from one source: records per tree, and what it lost."""

    records: dict[str, int] = field(default_factory=dict)
    lost: list[Damage] = field(default_factory=list)
    """What could not be read (listed up to a bound per tree)."""
    lost_records: int = 0
    keys: set[str] = field(default_factory=set)
    """The full keys copied."""


class Salvage:
    """A damaged (or sound) store opened read-only for a rescue; a context manager."""

    def __init__(self, lmdb_dir: Path, work_dir: Path) -> None:
        """Open ``lmdb_dir``; a copy made mappable goes to ``work_dir`` when needed."""
        self.rescued: list[str] = []
        """What was changed in a copy of the data file to map it at all."""
        self._copy: Path | None = None
        path = lmdb_dir
        if not (lmdb_dir / DATA_FILE).is_file():
            raise StoreFormatError(f"no LMDB data file in {lmdb_dir}")
        found = problem(lmdb_dir / DATA_FILE)
        if found is not None:
            self._copy = path = work_dir
            self.rescued = [found, *salvage_copy(lmdb_dir, work_dir)]
        with lmdb_errors():
            self.env = lmdb.open(str(path), readonly=True, lock=False, subdir=True,
                                 max_dbs=MAX_DBS, readahead=False)

    def local(self, name: str, default: Any = None) -> Any:
        """A store-local value, or ``default`` when it is missing or unreadable."""
        return self.local_items(name, exact=True).get(name, default)

    def local_items(self, prefix: str, *, exact: bool = False) -> dict[str, Any]:
        """Store-local values whose name starts with ``prefix`` (``exact``: is it) and that
        can be read; a damaged one is left out, the caller keeps its default."""
        found: dict[str, Any] = {}
        txn = self.env.begin()
        try:
            db = self._db(txn, LOCAL_TREE)
            cursor = None if db is None else txn.cursor(db=db)
            if cursor is None or not cursor.set_range(prefix.encode()):
                return found
            for raw_key, raw in cursor:
                raw_key = bytes(raw_key)
                if not raw_key.startswith(prefix.encode()) or (exact and found):
                    break
                try:
                    name = raw_key.decode()
                    found[name] = codec.decode_local(name, bytes(raw))
                except (UnicodeDecodeError, CorruptRecordError):
                    continue  # not kept: the caller's default stands in
        except lmdb.Error:
            pass  # a damaged page: what was read before it is kept, the rest defaults
        finally:
            txn.abort()
        return {k: v for k, v in found.items() if not exact or k == prefix}

    def repo_ids(self) -> list[str]:
        """Repositories whose root node is sound in the structural tree."""
        spec = BY_NAME[TREES[0].name]
        ids = set()
        txn = self.env.begin()
        try:
            db = self._db(txn, spec.name)
            if db is not None:
                for key, _, _ in sound_records(txn, db, spec, lambda d: None):
                    parsed = parse_key(key)
                    if parsed.family == ROOT_FAMILY:
                        ids.add(parsed.repo_id)
        finally:
            txn.abort()
        return sorted(ids)

    def copy_into(self, dest: Trees, names: Iterable[str]) -> Copied:
        """Merge every sound record of the trees ``names`` into ``dest``."""
        copied = Copied()
        for name in names:
            copied.records[name] = self._copy_tree(dest, name, copied)
        return copied

    def _copy_tree(self, dest: Trees, name: str, copied: Copied) -> int:
        check = TreeCheck(name)
        txn = self.env.begin()
        try:
            db = open_tree(self.env, txn, name, check.note)
            if db is not None:
                check.entries = txn.stat(db)["entries"]
                pending: list[tuple[str, Record]] = []
                for key, _, rec in sound_records(txn, db, BY_NAME[name], check.note):
                    pending.append((key, rec))
                    if len(pending) >= _CHUNK:
                        check.sound += _merge(dest, pending, copied)
                check.sound += _merge(dest, pending, copied)
                note_unreached(check)
        finally:
            txn.abort()
        copied.lost += check.damage
        copied.lost_records += check.damaged_records + _unreached_count(check)
        return check.sound

    def _db(self, txn: lmdb.Transaction, name: str) -> Any | None:
        return open_tree(self.env, txn, name, lambda damage: None)

    def close(self) -> None:
        """Close the environment and remove a rescue copy."""
        self.env.close()
        if self._copy is not None:
            shutil.rmtree(self._copy, ignore_errors=True)

    def __enter__(self) -> Salvage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _unreached_count(check: TreeCheck) -> int:
    """Records LMDB counted in the tree but the cursor never reached."""
    return max(0, check.entries - check.sound - check.damaged_records)


def _merge(dest: Trees, pending: list[tuple[str, Record]], copied: Copied) -> int:
    """Merge ``pending`` ``(key, record)`` pairs into ``dest`` in one batch; empties it."""
    with dest.batch() as batch:
        for key, rec in pending:
            batch.merge(key, rec)
            copied.keys.add(key)
    done = len(pending)
    pending.clear()
    return done
