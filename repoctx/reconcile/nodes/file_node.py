"""reconcile/nodes/file_node — the file node record at ``repo/{id}/file/{path}``.

LWW fields: ``size``, ``mtime_ns``, ``digest`` (SHA-256 hex of the bytes), ``language``,
``tokens`` (exact cl100k count of the whole body; None until content-processed),
``symbols`` (sorted fully-qualified names the file declares) and ``markers`` (the
sorted subset of ``MARKERS`` this version of the file has been processed for).
``DECLS`` names the shape of the declarations its symbols were projected in
(``decl_wire.WIRE_VERSION``): a node without the current one is re-projected once,
as a back-fill, and a marker of an older shape is dropped then. ``LINKS`` does the same
for the content record's ``links`` (``links_wire.LINKS_VERSION``): it is set with
``CONTENT`` when the content record was written with the current shape.
Retiring a file writes None everywhere, which makes the node a tombstone.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from repoctx.crdt.record import Record
from repoctx.reconcile.nodes.decl_wire import WIRE_VERSION
from repoctx.reconcile.nodes.fields import lww_delta, lww_value
from repoctx.reconcile.nodes.links_wire import LINKS_VERSION
from repoctx.store import Store
from repoctx.trees import BY_FAMILY, check_stored, family_prefix, key_name, make_key

if TYPE_CHECKING:
    from repoctx.reconcile.walk import WalkedFile
    from repoctx.trees import Snapshot

CONTENT, SYMBOLS, XREF = "content", "symbols", "xref"
DECLS = f"decls-v{WIRE_VERSION}"
LINKS = f"links-v{LINKS_VERSION}"
MARKERS = (CONTENT, LINKS, SYMBOLS, XREF, DECLS)
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
    every node would be ~15% of a one-file ``repoctx index`` on Django. Values set
    later (the pass's own nodes) are returned as they are."""

    def __init__(self, scanned: dict[str, tuple[str, Record]]) -> None:
        self._scanned = scanned  # path -> (key, record not checked yet)
        self._values: dict[str, FileNode | Record] = {}
        self._written: set[str] = set()  # paths set or deleted since the scan

    def __getitem__(self, path: str) -> FileNode | Record:
        value = self._values.get(path)
        if value is None:
            key, rec = self._scanned[path]
            value = self._values[path] = check_stored(key, rec)
        return value

    def __setitem__(self, path: str, value: FileNode | Record) -> None:
        self._scanned.setdefault(path, ("", Record({})))
        self._values[path] = value
        self._written.add(path)

    def __delitem__(self, path: str) -> None:
        del self._scanned[path]
        self._values.pop(path, None)
        self._written.add(path)

    def lend(self, generation: int, walked: Iterable[WalkedFile], since_ns: int) -> Lent | None:
        """What a later reader of the same store may take instead of scanning again: the
        scanned records of the paths never set or deleted here, valid while the
        structural tree is at ``generation`` (what it reads once this pass's writes,
        and nobody else's, are in), and the stats of the files ``walked``. None when
        most paths were written (a first index): reading those again costs what a scan
        does, and keeping the scan costs memory."""
        if 2 * len(self._written) > len(self._scanned):
            return None
        stats = {f.path: (f.size, f.mtime_ns) for f in walked}
        return Lent(generation, self._scanned, frozenset(self._written), stats, since_ns)

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


@dataclass(frozen=True, slots=True)
class Lent:
    """A pass's scan of the file nodes, lent to the export that follows it in the same
    process (``LiveNodes.lend``): the export skips decoding every node again (~45 ms of a
    one-file ``repoctx index`` on Django)."""

    generation: int
    """The structural tree's generation at which ``scanned`` minus ``written`` is current."""
    scanned: dict[str, tuple[str, Record]]
    written: frozenset[str]
    """Paths whose records changed since the scan: read again."""
    stats: dict[str, tuple[int, int]]
    """The walk's ``(size, mtime_ns)`` of each file it listed (regular files all)."""
    since_ns: int
    """When the walk began, before it took any stat."""


STRUCTURAL = BY_FAMILY["file"].name
"""The tree holding the file nodes: its generation dates a saved walk (``walk_cache``)
and a lent scan."""


def load_records(store: Store) -> LiveNodes:
    """Every live file node record, undecoded, by path (one scan)."""
    with store.snapshot() as snap:
        return records_in(store, snap)


def records_in(store: Store, snapshot: Snapshot, lent: Lent | None = None) -> LiveNodes:
    """``load_records`` as ``snapshot`` sees them (paths unescaped from their keys).

    With ``lent`` at the generation the snapshot reads, only its written paths are read;
    the rest are taken as lent (the same records a scan would decode).
    """
    if lent is not None and snapshot.generation(STRUCTURAL) == lent.generation:
        records = {path: held for path, held in lent.scanned.items()
                   if path not in lent.written}
        for path in lent.written:
            key = make_key(store.repo_id, "file", path)
            rec = snapshot.get(key)
            if rec is not None:
                records[path] = (key, rec)
        return LiveNodes(records)
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
