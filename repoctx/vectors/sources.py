"""vectors/sources — what can be embedded: source ids, versions and the live set.

A source is a file (``file:{path}``), a symbol (``symbol:{fqName}``) or a memory entry
(``mem:{topic}/{id}``). Its version says which content its vectors were made from: a
file's digest; for a symbol, the digest of its primary declaring file (the ``.py``
before the ``.pyi``, then path order); for a memory entry a hash of its text. The live
set is read from the file nodes and the memory tree only (one scan each): a symbol's
record is read when it is embedded, never to find out whether it needs to be.
A file whose content was not projected (no ``content`` marker) is not a source yet, and
a file that declares symbols is embedded as its symbols only (``CODE_FILE_WINDOWS``).
``live_since`` reads only what changed since a ``caught_up`` mark: the file nodes'
stored bytes are fingerprinted, and only the nodes that differ are decoded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from repoctx.crdt import record
from repoctx.crdt.record import Record
from repoctx.reconcile.nodes import file_node
from repoctx.store import Store
from repoctx.trees import BY_FAMILY, Snapshot, check_stored, family_prefix, key_name
from repoctx.vectors.chunks import memory_text

FILE, SYMBOL, MEMORY = "file", "symbol", "mem"
KINDS = (FILE, SYMBOL, MEMORY)
CODE_FILE_WINDOWS = False
"""Whether a file that declares symbols is a source of its own (windows over its body)
besides its symbols. Off: on Django such windows are 36% of the vectors and
most of the embedded text, yet fused search found the same files without them (Django
questions and the SWE split, ``bench/embedders.py``); files without symbols (documents,
configuration, templates) keep their windows."""


@dataclass(frozen=True, slots=True)
class Source:
    """One embeddable source as the store knows it now."""

    id: str
    kind: str
    key: str
    """The key of the record the source is (file node, symbol or memory entry)."""
    version: str
    path: str | None = None
    text: str | None = None
    """The text to embed when it is already known (memory entries)."""


def source_id(kind: str, name: str) -> str:
    """``{kind}:{name}``."""
    return f"{kind}:{name}"


def split_source_id(sid: str) -> tuple[str, str]:
    """``(kind, name)`` of a source id."""
    kind, _, name = sid.partition(":")
    return kind, name


def page_of(sid: str) -> int:
    """The coverage page of a source: the leading byte of the SHA-256 of its id."""
    return hashlib.sha256(sid.encode()).digest()[0]


def text_version(text: str) -> str:
    """The version of a text source: 16 hex digits of its SHA-256."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class LiveSources(Mapping[str, Source]):
    """The live sources by id, kept as ``(version, path)`` rows: a file's or symbol's
    ``Source`` (and its record key) is made when it is looked up. A gap scan compares
    every live version with the coverage digest and embeds a few sources; making a
    ``Source`` and a key for each of Django's 47k symbols is a third of it."""

    def __init__(self, store: Store) -> None:
        self._key = store.key
        self._rows: dict[str, tuple[str, str]] = {}  # file or symbol id -> (version, path)
        self._memory: dict[str, Source] = {}
        self.files: dict[str, FileMark] = {}
        """Every live file node's ``FileMark`` (empty when files and symbols were not
        asked for)."""
        self.until_ms: int | None = None
        """The earliest expiry of a live file node (None: none expires); every such
        node is decoded, by ``live_since`` too (its ``FileMark`` never matches)."""
        self.touched: set[str] | None = None
        """``live_since``: the file and symbol ids a change since the mark can have
        made, gone or moved (the rows hold the live ones among them); None: every id."""

    def __getitem__(self, sid: str) -> Source:
        found = self._memory.get(sid)
        if found is not None:
            return found
        version, path = self._rows[sid]
        kind, name = split_source_id(sid)
        return Source(sid, kind, self._key(kind, name), version, path)

    def __iter__(self) -> Iterator[str]:
        yield from self._rows
        yield from self._memory

    def __len__(self) -> int:
        return len(self._rows) + len(self._memory)

    def __contains__(self, sid: object) -> bool:
        return sid in self._rows or sid in self._memory

    def add_file(self, rec: Record, mark: bytes, node: _Node) -> None:
        """Keep the ``FileMark`` of the live file node ``rec``, stored as bytes named
        ``mark``."""
        expires = record.expires_ms(rec)
        if expires is not None:
            self.until_ms = expires if self.until_ms is None else min(self.until_ms, expires)
        self.files[node.path] = (b"" if expires is not None else mark), node.symbols

    def counted(self) -> int:
        """How many file and symbol sources are held."""
        return len(self._rows)

    def memory(self) -> int:
        """How many memory sources are held."""
        return len(self._memory)

    def versions(self) -> Iterator[tuple[str, str]]:
        """``(id, version)`` of every live source, making no ``Source``."""
        for sid, (version, _) in self._rows.items():
            yield sid, version
        for sid, src in self._memory.items():
            yield sid, src.version


FileMark = tuple[bytes, tuple[str, ...]]
"""``(fingerprint, symbols)`` of a live file node (``fingerprint``; empty for a node
with an expiry, whose visibility changes with time alone)."""


def fingerprint(raw: bytes) -> bytes:
    """16 bytes naming a file node's stored bytes (a rewrite of equal values may change
    it, which costs a needless decode, never a missed change)."""
    return hashlib.blake2b(raw, digest_size=16).digest()


def live_sources(store: Store, snap: Snapshot, kinds: Iterable[str] = KINDS) -> LiveSources:
    """Every source that exists now, by id."""
    kinds = set(kinds)
    out = LiveSources(store)
    if kinds & {FILE, SYMBOL}:
        stored = {key_name(key): fingerprint(raw) for key, raw in _stored(store, snap)}
        nodes = []
        for key, rec in snap.scan(family_prefix(store.repo_id, "file"), checked=False):
            nodes.append(_node(key, rec))
            out.add_file(rec, stored.get(nodes[-1].path, b""), nodes[-1])
        out._rows.update(_rows(nodes, kinds))
    if MEMORY in kinds:
        out._memory.update(_memory(store, snap))
    return out


def live_since(store: Store, snap: Snapshot, kinds: Iterable[str],
               before: Mapping[str, FileMark]) -> LiveSources:
    """The live sources a change of the file nodes since ``before`` (each node's
    ``FileMark`` then) can have touched, and every memory source. A node whose stored
    bytes are unchanged is not decoded; the sources of one that changed, came or went
    are made again, with those of every other declarer of a symbol it declares or
    declared (a symbol's version is its primary declarer's digest)."""
    kinds = set(kinds)
    out = LiveSources(store)
    out.touched = set()
    if kinds & {FILE, SYMBOL}:
        keys: dict[str, str] = {}
        changed: list[_Node] = []
        for key, raw in _stored(store, snap):
            path = key_name(key)
            keys[path] = key
            mark, old = fingerprint(raw), before.get(path)
            if old is not None and old[0] == mark:
                out.files[path] = old
                continue
            rec = snap.get(key)
            if rec is not None:  # else a tombstone: not live
                changed.append(_node(key, rec))
                out.add_file(rec, mark, changed[-1])
        moved = {n.path for n in changed} | {p for p in before if p not in out.files}
        names = {fq for p in moved if p in before for fq in before[p][1]}
        names.update(fq for n in changed for fq in n.symbols)
        others = [(keys[p], snap.get(keys[p])) for p, (_, declared) in out.files.items()
                  if p not in moved and declared and not names.isdisjoint(declared)]
        rows = _rows(changed + [_node(k, rec) for k, rec in others if rec is not None], kinds)
        out.touched = {source_id(FILE, p) for p in moved} | {source_id(SYMBOL, fq)
                                                             for fq in names}
        out._rows.update((sid, row) for sid, row in rows.items() if sid in out.touched)
    if MEMORY in kinds:
        out._memory.update(_memory(store, snap))
    return out


def _stored(store: Store, snap: Snapshot) -> Iterator[tuple[str, bytes]]:
    """Every file node's ``(key, stored bytes)``, hidden ones included, undecoded."""
    return snap.scan_encoded(BY_FAMILY["file"], family_prefix(store.repo_id, "file"))


def _rows(nodes: list[_Node], kinds: set[str]) -> dict[str, tuple[str, str]]:
    rows = _files(nodes) if FILE in kinds else {}
    return (rows | _symbols(nodes)) if SYMBOL in kinds else rows


@dataclass(frozen=True, slots=True)
class _Node:
    """The fields of a file node the live set is made of."""

    path: str
    digest: str
    markers: tuple[str, ...]
    symbols: tuple[str, ...]


def _node(key: str, rec: Record) -> _Node:
    try:
        return _fields(key, rec)
    except Exception:  # noqa: BLE001 - the whole check names the damage (or passes)
        return _fields(key, check_stored(key, rec))


def _fields(key: str, rec: Record) -> _Node:
    return _Node(key_name(key), file_node.field_of(rec, "digest"),
                 tuple(file_node.field_of(rec, "markers") or ()), file_node.symbols_of(rec))


def _files(nodes: list[_Node]) -> dict[str, tuple[str, str]]:
    return {source_id(FILE, n.path): (n.digest, n.path) for n in nodes
            if file_node.CONTENT in n.markers and (CODE_FILE_WINDOWS or not n.symbols)}


def _symbols(nodes: list[_Node]) -> dict[str, tuple[str, str]]:
    """Each symbol's primary declaring file: the ``.py`` before the ``.pyi``, then path
    order (the first node, in that order, to declare it)."""
    out: dict[str, tuple[str, str]] = {}
    ranked = sorted((n for n in nodes if file_node.SYMBOLS in n.markers),
                    key=lambda n: (n.path.endswith(".pyi"), n.path))
    for node in ranked:
        row = (node.digest, node.path)
        for fq in node.symbols:
            out.setdefault(f"{SYMBOL}:{fq}", row)
    return out


def _memory(store: Store, snap: Snapshot) -> dict[str, Source]:
    from repoctx.memory import live_entry  # the memory layer loads only for a gap scan

    prefix = store.key(MEMORY, "x")[:-1]
    out = {}
    for key, rec in snap.scan(prefix):
        entry = live_entry(key, rec, snap.now_ms)
        if entry is None:
            continue
        text = memory_text(entry.title, entry.tags, entry.body)
        sid = source_id(MEMORY, f"{entry.topic}/{entry.id}")
        out[sid] = Source(sid, MEMORY, key, text_version(text), None, text)
    return out
