"""vectors/records/coverage — the coverage digest: which sources are embedded, in 257 rows.

``repo/{id}/vcov/p000`` … ``p255`` hold the covered sources whose id's SHA-256 starts
with that byte (source id -> ``[version, vectors]``, 0 vectors for a ``nil-`` source);
``vcov/state`` holds the space the digest describes and each page's entry count. A gap
scan reads exactly these 257 rows instead of the whole membership range.

Invariants: the digest is a subset of membership — a source is added to membership
before the digest, removed from the digest before membership, and the state row is
written last (``CoverageWriter.apply``). A missing state row, another space, an
undecodable page or a page whose entry count disagrees with the state row means the
digest is unbuilt or damaged: ``read`` answers None and the caller falls back to the
membership scan (and rebuilds the digest from it). Derived and local: never replicated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from repoctx.crdt import lww_register, record
from repoctx.crdt.record import Record
from repoctx.errors import CorruptRecordError
from repoctx.trees import Batch, Snapshot, make_key
from repoctx.vectors.sources import page_of

FAMILY = "vcov"
PAGES = 256
ROWS = PAGES + 1
ENTRIES, STATE = "entries", "state"
Entry = tuple[str | None, int]
"""``(version, vectors)`` of a covered source."""


@dataclass
class Coverage:
    """The digest as read: covered sources, and how many rows the read took."""

    space: str
    entries: dict[str, Entry]
    rows_read: int


def page_key(repo_id: str, page: int) -> str:
    """``repo/{repoId}/vcov/p{page:03d}``."""
    return make_key(repo_id, FAMILY, f"p{page:03d}")


def state_key(repo_id: str) -> str:
    """``repo/{repoId}/vcov/state``."""
    return make_key(repo_id, FAMILY, STATE)


def read(snap: Snapshot, repo_id: str, space: str) -> Coverage | None:
    """The digest of ``space`` in exactly 257 row reads; None when unbuilt or damaged."""
    entries: dict[str, Entry] = {}
    counts: list[int] = []
    rows = 0
    try:
        for page in range(PAGES):
            rows += 1
            found = _entries(snap.get(page_key(repo_id, page)))
            counts.append(len(found))
            entries.update(found)
        rows += 1
        state = _value(snap.get(state_key(repo_id)), STATE)
    except (CorruptRecordError, TypeError, ValueError):
        return None  # a damaged row: the caller rebuilds from membership
    if not isinstance(state, Mapping) or state.get("space") != space:
        return None
    if list(state.get("counts") or ()) != counts:
        return None
    return Coverage(space, entries, rows)


def built(snap: Snapshot, repo_id: str, space: str) -> bool:
    """Whether the digest of ``space`` is built (its state row only, one read)."""
    try:
        state = _value(snap.get(state_key(repo_id)), STATE)
    except (CorruptRecordError, TypeError, ValueError):
        return False
    return isinstance(state, Mapping) and state.get("space") == space


def _value(rec: Record | None, name: str) -> Any:
    return record.field_state(rec, name, lww_register).value


def _entries(rec: Record | None) -> dict[str, Entry]:
    raw = _value(rec, ENTRIES) or {}
    return {sid: (v[0], int(v[1])) for sid, v in raw.items()}


@dataclass
class CoverageWriter:
    """Pending digest changes, applied inside the batch that changed membership."""

    repo_id: str
    space: str
    adds: dict[str, Entry] = field(default_factory=dict)
    removes: set[str] = field(default_factory=set)

    def add(self, sid: str, version: str | None, vectors: int) -> None:
        """Record that ``sid`` is now covered (after its membership was enabled)."""
        self.removes.discard(sid)
        self.adds[sid] = (version, vectors)

    def remove(self, sid: str) -> None:
        """Record that ``sid`` is no longer covered (before its membership is disabled)."""
        self.adds.pop(sid, None)
        self.removes.add(sid)

    def apply(self, batch: Batch, tick: int, replica: str) -> None:
        """Write the touched pages, then the state row last; clears the pending changes."""
        if not self.adds and not self.removes:
            return
        counts = list(_value(batch.get(state_key(self.repo_id)), STATE)["counts"])
        touched: dict[int, list[str]] = {}
        for sid in (*self.removes, *self.adds):
            touched.setdefault(page_of(sid), []).append(sid)
        for page, sids in sorted(touched.items()):
            key = page_key(self.repo_id, page)
            entries = _entries(batch.get(key))
            for sid in sids:
                if sid in self.adds:
                    entries[sid] = self.adds[sid]
                else:
                    entries.pop(sid, None)
            counts[page] = len(entries)
            batch.merge(key, _write(ENTRIES, entries, tick, replica))
        state = {"space": self.space, "counts": counts}
        batch.merge(state_key(self.repo_id), _write(STATE, state, tick, replica))
        self.adds, self.removes = {}, set()


def rebuild(batch: Batch, repo_id: str, space: str, covered: Mapping[str, Entry], tick: int,
            replica: str) -> None:
    """Write the whole digest of ``space`` from ``covered`` (all 256 pages, then state)."""
    pages: list[dict[str, Entry]] = [{} for _ in range(PAGES)]
    for sid, entry in covered.items():
        pages[page_of(sid)][sid] = entry
    for page, entries in enumerate(pages):
        batch.merge(page_key(repo_id, page), _write(ENTRIES, entries, tick, replica))
    state = {"space": space, "counts": [len(p) for p in pages]}
    batch.merge(state_key(repo_id), _write(STATE, state, tick, replica))


def invalidate(batch: Batch, repo_id: str, tick: int, replica: str) -> None:
    """Mark the digest unbuilt (the next gap scan rebuilds it from membership).

    For whoever changes membership behind the back-fill's back, e.g. a replication
    receive that brought in another cluster's retires.
    """
    batch.merge(state_key(repo_id), _write(STATE, None, tick, replica))


def _write(name: str, value: Any, tick: int, replica: str) -> Record:
    return record.write({name: lww_register.set_value(lww_register.EMPTY, _plain(value), tick,
                                                      replica)}, tick)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: list(v) if isinstance(v, tuple) else v for k, v in value.items()}
    return value

