"""trees/integrity — check every record of every tree, and read the sound ones of a damaged store.

A record is sound when its LMDB key is UTF-8, follows the key grammar and belongs in
the tree it is stored in (a hashed key matches the full key its record carries), the
keys of a tree come in order, and its value decodes whole (``codec.decode``: the map
and every field's CRDT encoding). A tree is sound when the cursor reaches as many
records as LMDB's own count says it holds and no page fails on the way. The main
database holds exactly the names of the trees; the store-local tree holds msgpack.

Read-only: ``check_trees`` reports damage, ``sound_records`` yields what survives of a
tree for a rescue (``trees/salvage``). Knows nothing of files, symbols or memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lmdb

from repoctx.crdt import record
from repoctx.crdt.record import Record
from repoctx.errors import CorruptRecordError, StoreError

from . import codec
from .data_file import check_data_file
from .isolated import Crashed, run_isolated
from .keys import lmdb_key, tree_of
from .lmdb_env import DEFAULT_MAP_SIZE, lmdb_errors, open_lmdb
from .spec import BY_NAME, LOCAL_TREE, TREES, TreeSpec

_MAX_LISTED = 50
"""Damaged records listed per tree; the count covers every one."""


@dataclass(frozen=True, slots=True)
class Damage:
    """One thing wrong in a tree: where (tree and key, '' when unknown) and what."""

    tree: str
    key: str
    reason: str
    record: bool = True
    """False when the damage is not one record's (a page, a whole tree)."""

    def as_json(self) -> dict[str, str]:
        """The damage as a JSON object."""
        return {"tree": self.tree, "key": self.key, "reason": self.reason}


@dataclass(slots=True)
class TreeCheck:
    """The check of one tree: records LMDB counts, records read sound, and the damage."""

    tree: str
    entries: int = 0
    sound: int = 0
    damaged: int = 0
    """Damage found: records, pages, records never reached."""
    damaged_records: int = 0
    damage: list[Damage] = field(default_factory=list)

    @property
    def unreached(self) -> int:
        """Records LMDB counts that the cursor never reached (``entries`` set and the
        records read counted)."""
        return max(0, self.entries - self.sound - self.damaged_records)

    @property
    def ok(self) -> bool:
        """True when every record LMDB counts was read and is sound."""
        return self.damaged == 0 and self.sound == self.entries

    def note(self, damage: Damage) -> None:
        """Count ``damage`` (and list it, up to a bound)."""
        self.damaged += 1
        self.damaged_records += damage.record
        if len(self.damage) < _MAX_LISTED:
            self.damage.append(damage)

    def as_json(self) -> dict[str, Any]:
        """The check as a JSON object."""
        return {"tree": self.tree, "ok": self.ok, "entries": self.entries,
                "sound": self.sound, "damaged": self.damaged,
                "damage": [d.as_json() for d in self.damage]}


OnDamage = Callable[[Damage], None]


def check_trees(env: lmdb.Environment) -> list[TreeCheck]:
    """Check the main database, every named tree and the store-local tree of ``env``.

    The main database's check comes first, under the tree name ``""``. Each runs in its
    own read transaction: a damaged page leaves LMDB's transaction unusable.
    """
    return list(_checks(env, ALL_NAMES))


ALL_NAMES = ("", *(t.name for t in TREES), LOCAL_TREE)
"""What ``check_trees`` checks, in order: the main database, the trees, the local tree."""


def _checks(env: lmdb.Environment, names: tuple[str, ...]) -> Iterator[TreeCheck]:
    for name in names:
        if name == "":
            yield _in_txn(env, _check_main)
        elif name == LOCAL_TREE:
            yield _in_txn(env, lambda txn: _check_local(env, txn))
        else:
            yield _in_txn(env, lambda txn, n=name: _check_tree(env, txn, BY_NAME[n]))


def _in_txn(env: lmdb.Environment, run: Callable[[lmdb.Transaction], TreeCheck]) -> TreeCheck:
    txn = env.begin()
    try:
        return run(txn)
    finally:
        txn.abort()


def _check_tree(env: lmdb.Environment, txn: lmdb.Transaction, spec: TreeSpec) -> TreeCheck:
    check = TreeCheck(spec.name)
    db = open_tree(env, txn, spec.name, check.note)
    if db is not None:
        for _ in counted_records(txn, db, spec, check):
            pass
    return check


def counted_records(txn: lmdb.Transaction, db: Any, spec: TreeSpec, check: TreeCheck,
                    ) -> Iterator[tuple[str, bytes, Record]]:
    """``sound_records`` of ``spec``'s tree, counted into ``check``: its entries, the
    records read sound, the damage, and (once exhausted) the records never reached."""
    check.entries = txn.stat(db)["entries"]
    for found in sound_records(txn, db, spec, check.note):
        check.sound += 1
        yield found
    note_unreached(check)


def sound_records(txn: lmdb.Transaction, db: Any, spec: TreeSpec, on_damage: OnDamage,
                  ) -> Iterator[tuple[str, bytes, Record]]:
    """``(full key, stored bytes, record)`` of every sound record of ``spec``'s tree, in
    the cursor's order; every other one, and a page that fails, goes to ``on_damage``.

    A key out of order is reported but its record still yielded when sound: LMDB cannot
    find it by its key, a rescue can."""
    previous = b""
    cursor = txn.cursor(db=db)
    try:
        for raw_key, raw in cursor:
            raw_key, raw = bytes(raw_key), bytes(raw)
            if raw_key <= previous:  # this key or the one before was damaged
                on_damage(Damage(spec.name, _shown(raw_key), "key out of order: LMDB cannot "
                                 "look it up, the page holding it is damaged", record=False))
            previous = raw_key
            found = _sound(spec, raw_key, raw, on_damage)
            if found is not None:
                yield found[0], raw, found[1]
    except lmdb.Error as exc:
        on_damage(Damage(spec.name, _shown(previous), f"the tree's pages are damaged after "
                         f"this key, the rest is unreadable: {exc}", record=False))
    finally:
        cursor.close()


def _sound(spec: TreeSpec, raw_key: bytes, raw: bytes, on_damage: OnDamage,
           ) -> tuple[str, Record] | None:
    """The full key and record of one stored entry, or None after reporting its damage."""
    try:
        key = raw_key.decode()
    except UnicodeDecodeError:
        on_damage(Damage(spec.name, _shown(raw_key), "the key is not UTF-8"))
        return None
    try:
        rec = codec.decode(spec, key, raw)
        full = record.full_key(rec) or key
        if tree_of(full) is not spec:
            raise CorruptRecordError(spec.name, key, f"a key of {tree_of(full).name}")
        if lmdb_key(full) != raw_key:
            raise CorruptRecordError(spec.name, key, f"the record names key {full!r}")
    except CorruptRecordError as exc:
        on_damage(Damage(spec.name, key, exc.reason))
        return None
    except StoreError as exc:  # a key outside the grammar
        on_damage(Damage(spec.name, key, str(exc)))
        return None
    return full, rec


def open_tree(env: lmdb.Environment, txn: lmdb.Transaction, name: str, on_damage: OnDamage,
          ) -> Any | None:
    """The named database ``name`` opened in ``txn`` (None, reported to ``on_damage``,
    when it is missing or unreadable)."""
    try:
        return env.open_db(name.encode(), txn=txn, create=False)
    except lmdb.NotFoundError:
        on_damage(Damage(name, "", "the tree is missing from the main database", record=False))
    except lmdb.Error as exc:
        on_damage(Damage(name, "", f"the tree cannot be opened: {exc}", record=False))
    return None


def note_unreached(check: TreeCheck) -> None:
    """Report ``check.unreached``, the records LMDB counts that the cursor never reached."""
    if check.unreached:
        check.note(Damage(check.tree, "", f"{check.unreached} records LMDB counts were never "
                          "reached (a damaged branch page)", record=False))


_NAMES = frozenset([t.name.encode() for t in TREES] + [LOCAL_TREE.encode()])


def _check_main(txn: lmdb.Transaction) -> TreeCheck:
    """The main database holds the trees' names and nothing else."""
    check = TreeCheck("")
    try:
        for name in txn.cursor().iternext(keys=True, values=False):
            check.entries += 1
            if bytes(name) in _NAMES:
                check.sound += 1
            else:
                check.note(Damage("", _shown(bytes(name)), "an unknown name in the main "
                                  "database (a damaged tree name?)"))
    except lmdb.Error as exc:
        check.note(Damage("", "", f"the main database is damaged: {exc}", record=False))
    return check


def _check_local(env: lmdb.Environment, txn: lmdb.Transaction) -> TreeCheck:
    """Every store-local value is a UTF-8 name and msgpack."""
    check = TreeCheck(LOCAL_TREE)
    db = open_tree(env, txn, LOCAL_TREE, check.note)
    if db is None:
        return check
    check.entries = txn.stat(db)["entries"]
    try:
        for raw_key, raw in txn.cursor(db=db):
            try:
                codec.decode_local(bytes(raw_key).decode(), bytes(raw))
                check.sound += 1
            except UnicodeDecodeError:
                check.note(Damage(LOCAL_TREE, _shown(bytes(raw_key)), "the name is not UTF-8"))
            except CorruptRecordError as exc:
                check.note(Damage(LOCAL_TREE, exc.key, exc.reason))
    except lmdb.Error as exc:
        check.note(Damage(LOCAL_TREE, "", f"the tree's pages are damaged: {exc}", record=False))
    note_unreached(check)
    return check


def _shown(raw_key: bytes) -> str:
    """A key for a report, undecodable bytes escaped."""
    return raw_key.decode(errors="backslashreplace")


def check_directory(lmdb_dir: Path) -> list[TreeCheck]:
    """``check_trees`` of the LMDB environment in ``lmdb_dir``, read in a child process.

    Raises ``StoreFormatError`` (naming the file and the next step) when the data file
    cannot be mapped safely, and when LMDB refuses the environment. A tree whose reading
    kills the child (an LMDB assertion, a fault) is reported as damaged, with the
    signal, and the trees after it are checked by a new child (``trees/isolated``).
    """
    check_data_file(lmdb_dir)
    checks: list[TreeCheck] = []
    remaining = ALL_NAMES
    while remaining:
        for message in run_isolated(_checks_in, lmdb_dir, remaining):
            if isinstance(message, Crashed):
                crashed = TreeCheck(remaining[0])
                crashed.note(Damage(remaining[0], "", f"reading the tree crashed LMDB "
                                    f"({message.how}): its pages are damaged", record=False))
                message = crashed
            checks.append(message)
            remaining = remaining[1:]
    return checks


def _checks_in(lmdb_dir: Path, names: tuple[str, ...]) -> Iterator[TreeCheck]:
    """The checks of ``names`` in ``lmdb_dir`` (run in the child). Registered as a reader
    so a concurrent writer cannot reuse the pages being read; without the lock file's
    write access (a read-only checkout), unregistered (``lmdb_env.open_lmdb``)."""
    with lmdb_errors():
        env = open_lmdb(lmdb_dir, DEFAULT_MAP_SIZE, readonly=True)
    try:
        yield from _checks(env, names)
    finally:
        env.close()
