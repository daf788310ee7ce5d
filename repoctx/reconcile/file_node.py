"""reconcile/file_node — the file node record at ``repo/{id}/file/{path}``.

LWW fields: ``size``, ``mtime_ns``, ``digest`` (SHA-256 hex of the bytes), ``language``,
``tokens`` (exact cl100k count of the whole body; None until content-processed),
``symbols`` (sorted fully-qualified names the file declares) and ``markers`` (the
sorted subset of ``MARKERS`` this version of the file has been processed for).
Retiring a file writes None everywhere, which makes the node a tombstone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from repoctx.crdt.record import Record
from repoctx.store import Store
from repoctx.trees import family_prefix, key_name

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


def load_records(store: Store) -> dict[str, Record]:
    """Every live file node record, undecoded, by path (one scan)."""
    with store.snapshot() as snap:
        return records_in(store, snap)


def records_in(store: Store, snapshot: Snapshot) -> dict[str, Record]:
    """``load_records`` as ``snapshot`` sees them (paths unescaped from their keys)."""
    prefix = family_prefix(store.repo_id, "file")
    return {key_name(key): rec for key, rec in snapshot.scan(prefix)}


def field_of(rec: Record, name: str) -> Any:
    """One field (of ``FIELDS``) of a node record, decoding only that field."""
    return lww_value(rec, name)


def symbols_of(rec: Record) -> tuple[str, ...]:
    """The fully-qualified names a node record declares, decoding only that field."""
    return tuple(lww_value(rec, "symbols") or ())


def stat_of(rec: Record) -> tuple[int, int, tuple[str, ...]]:
    """``(size, mtime_ns, markers)`` of a node record, decoding only those fields."""
    return lww_value(rec, "size"), lww_value(rec, "mtime_ns"), lww_value(rec, "markers") or ()
