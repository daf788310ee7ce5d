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

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lmdb

from repoctx.errors import CorruptRecordError, StoreFormatError

from . import codec
from .data_file import DATA_FILE, problem, salvage_copy
from .integrity import Damage, TreeCheck, counted_records, open_tree
from .isolated import Crashed, run_isolated
from .keys import parse_key
from .lmdb_env import MAX_DBS, lmdb_errors
from .spec import BY_NAME, LOCAL_TREE, TREES
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
    """A damaged (or sound) store opened for a rescue; a context manager.

    Every read runs in a forked child (``trees/isolated``): a page that crashes LMDB
    costs the rest of its tree, never the repair.
    """

    def __init__(self, lmdb_dir: Path, work_dir: Path) -> None:
        """Read ``lmdb_dir``; a copy made mappable goes to ``work_dir`` when needed."""
        self.rescued: list[str] = []
        """What was changed in a copy of the data file to map it at all."""
        self._copy: Path | None = None
        self.path = lmdb_dir
        if not (lmdb_dir / DATA_FILE).is_file():
            raise StoreFormatError(f"no LMDB data file in {lmdb_dir}")
        found = problem(lmdb_dir / DATA_FILE)
        if found is not None:
            self._copy = self.path = work_dir
            self.rescued = [found, *salvage_copy(lmdb_dir, work_dir)]

    def local_items(self, names: Iterable[str]) -> dict[str, Any]:
        """The store-local values named in ``names`` (a name ending in ``/``: every value
        under it) that can be read; a damaged one is left out."""
        found: dict[str, Any] = {}
        for message in run_isolated(_read_local, self.path, tuple(names)):
            if not isinstance(message, Crashed):
                found.update(message)
        return found

    def repo_ids(self) -> list[str]:
        """Repositories whose root node is sound in the structural tree."""
        ids: set[str] = set()
        for message in run_isolated(_read_records, self.path, (TREES[0].name,), "repo/"):
            if isinstance(message, tuple) and message[0] == "records":
                ids.update(parse_key(key).repo_id for key, _ in message[2]
                           if key.count("/") == 1)
        return sorted(ids)

    def copy_into(self, dest: Trees, names: Iterable[str]) -> Copied:
        """Merge every sound record of the trees ``names`` into ``dest``."""
        copied, remaining = Copied(), tuple(names)
        while remaining:
            tree, last = remaining[0], ""
            for message in run_isolated(_read_records, self.path, remaining, ""):
                if isinstance(message, Crashed):
                    copied.lost.append(Damage(tree, last, f"reading the tree crashed LMDB "
                                              f"({message.how}) after this key: the rest of "
                                              "it is lost", record=False))
                    copied.lost_records += 1  # at least; LMDB's count cannot be trusted now
                    remaining = remaining[1:]
                    break
                kind, tree = message[0], message[1]
                if kind == "records":
                    _merge(dest, tree, message[2], copied)
                    last = message[2][-1][0] if message[2] else last
                elif kind == "lost":
                    copied.lost += message[2].damage
                    copied.lost_records += message[2].damaged_records + message[2].unreached
                    remaining = remaining[1:]
        return copied

    def close(self) -> None:
        """Remove a rescue copy."""
        if self._copy is not None:
            import shutil  # not at the top: every store open imports this module

            shutil.rmtree(self._copy, ignore_errors=True)

    def __enter__(self) -> Salvage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open(path: Path) -> lmdb.Environment:
    with lmdb_errors():
        return lmdb.open(str(path), readonly=True, lock=False, subdir=True, max_dbs=MAX_DBS,
                         readahead=False)


def _read_local(path: Path, names: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    """(In the child.) One dict per readable store-local value ``names`` asks for; each
    name in its own transaction, since a damaged page spoils the one it is met in."""
    env = _open(path)
    try:
        for name in names:
            txn = env.begin()
            try:
                db = open_tree(env, txn, LOCAL_TREE, lambda damage: None)
                if db is None:
                    return
                if name.endswith("/"):
                    yield from _local_under(txn, db, name)
                elif (raw := txn.get(name.encode(), db=db)) is not None:
                    yield from _local_value(name, raw)
            except lmdb.Error:
                continue  # unreadable: the caller's default stands in
            finally:
                txn.abort()
    finally:
        env.close()


def _local_under(txn: lmdb.Transaction, db: Any, prefix: str) -> Iterator[dict[str, Any]]:
    with txn.cursor(db=db) as cursor:
        if not cursor.set_range(prefix.encode()):
            return
        for raw_key, raw in cursor:
            if not bytes(raw_key).startswith(prefix.encode()):
                return
            try:
                yield from _local_value(bytes(raw_key).decode(), raw)
            except UnicodeDecodeError:
                continue  # a damaged name: that value is not kept


def _local_value(name: str, raw: bytes) -> Iterator[dict[str, Any]]:
    try:
        yield {name: codec.decode_local(name, bytes(raw))}
    except CorruptRecordError:
        return  # not kept: the caller's default stands in


def _read_records(path: Path, names: tuple[str, ...], prefix: str) -> Iterator[tuple]:
    """(In the child.) ``("records", tree, [(key, bytes)])`` chunks of the sound records
    of each tree under ``prefix``, then ``("lost", tree, TreeCheck)`` for that tree."""
    env = _open(path)
    try:
        for name in names:
            check, txn = TreeCheck(name), env.begin()
            try:
                db = open_tree(env, txn, name, check.note)
                if db is not None:
                    chunk: list[tuple[str, bytes]] = []
                    for key, raw, _ in counted_records(txn, db, BY_NAME[name], check):
                        if key.startswith(prefix):
                            chunk.append((key, raw))
                        if len(chunk) >= _CHUNK:
                            yield ("records", name, chunk)
                            chunk = []
                    yield ("records", name, chunk)
            finally:
                txn.abort()
            yield ("lost", name, check)
    finally:
        env.close()


def _merge(dest: Trees, tree: str, chunk: list[tuple[str, bytes]], copied: Copied) -> None:
    """Merge the stored ``(key, bytes)`` of a chunk into ``dest`` in one batch."""
    spec = BY_NAME[tree]
    with dest.batch() as batch:
        for key, raw in chunk:
            batch.merge(key, codec.decode(spec, key, raw))
            copied.keys.add(key)
    copied.records[tree] = copied.records.get(tree, 0) + len(chunk)
