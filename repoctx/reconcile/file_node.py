"""reconcile/file_node — the file node record at ``repo/{id}/file/{path}``.

LWW fields: ``size``, ``mtime_ns``, ``digest`` (SHA-256 hex of the bytes), ``language``,
``tokens`` (exact cl100k count of the whole body; None until content-processed),
``symbols`` (sorted fully-qualified names the file declares) and ``markers`` (the
sorted subset of ``MARKERS`` this version of the file has been processed for).
Retiring a file writes None everywhere, which makes the node a tombstone.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from repoctx.crdt.record import Record
from repoctx.store import Store
from repoctx.trees import check_stored, family_prefix, key_name

from .fields import lww_delta, lww_value

if TYPE_CHECKING:
    from repoctx.trees import Snapshot

CONTENT, SYMBOLS, XREF = "content", "symbols", "xref"
MARKERS = (CONTENT, SYMBOLS, XREF)
FIELDS = ("size", "mtime_ns", "digest", "language", "tokens", "symbols", "markers")


@dataclass(frozen=True, slots=True)
class FileNode:
    """What the store knows of one file."""

    path: str
    size: int
    mtime_ns: int
    digest: str
    language: str | None = None
    tokens: int | None = None
    symbols: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()

    def has(self, marker: str) -> bool:
        """True when this version of the file was processed for ``marker``."""
        return marker in self.markers


def file_node(path: str, rec: Record) -> FileNode:
    """The view of a stored (visible) file node record."""
    return FileNode(path, lww_value(rec, "size"), lww_value(rec, "mtime_ns"),
                    lww_value(rec, "digest"), lww_value(rec, "language"),
                    lww_value(rec, "tokens"), symbols_of(rec),
                    tuple(lww_value(rec, "markers") or ()))


def node_delta(current: Record | None, node: FileNode, tick: int, replica: str) -> Record | None:
    """Delta that makes the stored node equal ``node`` (None when it already does)."""
    values = {"size": node.size, "mtime_ns": node.mtime_ns, "digest": node.digest,
              "language": node.language, "tokens": node.tokens,
              "symbols": tuple(sorted(node.symbols)), "markers": tuple(sorted(node.markers))}
    return lww_delta(current, values, tick, replica)


def retire_delta(current: Record | None, tick: int, replica: str) -> Record | None:
    """Delta that retires the node (every field None: a tombstone)."""
    return lww_delta(current, dict.fromkeys(FIELDS), tick, replica)


def load_all(store: Store) -> dict[str, FileNode]:
    """Every live file node of the store's repository, by path (one scan)."""
    return {path: file_node(path, rec) for path, rec in load_records(store).items()}


class LiveNodes(MutableMapping[str, "FileNode | Record"]):
    """Live file nodes by path, as scanned: each record's fields are checked (a damaged
    one raises ``CorruptRecordError`` naming its key) when the record is first looked
    up, not by the scan. A one-file pass looks up the changed files' alone: checking
    every node was ~15% of a one-file ``repoctx index`` on Django (issue 15). Values set
    later (the pass's own nodes) are returned as they are."""

    def __init__(self, scanned: dict[str, tuple[str, Record]]) -> None:
        self._scanned = scanned  # path -> (key, record not checked yet)
        self._values: dict[str, FileNode | Record] = {}

    def __getitem__(self, path: str) -> FileNode | Record:
        value = self._values.get(path)
        if value is None:
            key, rec = self._scanned[path]
            value = self._values[path] = check_stored(key, rec)
        return value

    def __setitem__(self, path: str, value: FileNode | Record) -> None:
        self._scanned.setdefault(path, ("", Record({})))
        self._values[path] = value

    def __delitem__(self, path: str) -> None:
        del self._scanned[path]
        self._values.pop(path, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._scanned)

    def __len__(self) -> int:
        return len(self._scanned)

    def __contains__(self, path: object) -> bool:
        return path in self._scanned

    def symbols(self, path: str) -> tuple[str, ...]:
        """The names ``path``'s node declares, reading only that field of a node not
        looked up yet (which is checked whole when that field does not decode)."""
        value = self._values.get(path)
        if isinstance(value, FileNode):
            return value.symbols
        try:
            return symbols_of(value if value is not None else self._scanned[path][1])
        except Exception:  # noqa: BLE001 - the whole check names the damage (or passes)
            return symbols_of(self[path])


def load_records(store: Store) -> LiveNodes:
    """Every live file node record, undecoded, by path (one scan)."""
    with store.snapshot() as snap:
        return records_in(store, snap)


def records_in(store: Store, snapshot: Snapshot) -> LiveNodes:
    """``load_records`` as ``snapshot`` sees them (paths unescaped from their keys)."""
    prefix = family_prefix(store.repo_id, "file")
    return LiveNodes({key_name(key): (key, rec)
                      for key, rec in snapshot.scan(prefix, checked=False)})


def field_of(rec: Record, name: str) -> Any:
    """One field (of ``FIELDS``) of a node record, decoding only that field."""
    return lww_value(rec, name)


def symbols_of(rec: Record) -> tuple[str, ...]:
    """The fully-qualified names a node record declares, decoding only that field."""
    return tuple(lww_value(rec, "symbols") or ())


def stat_of(rec: Record) -> tuple[int, int, tuple[str, ...]]:
    """``(size, mtime_ns, markers)`` of a node record, decoding only those fields."""
    return lww_value(rec, "size"), lww_value(rec, "mtime_ns"), lww_value(rec, "markers") or ()
