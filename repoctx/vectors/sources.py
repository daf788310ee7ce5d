"""vectors/sources — what can be embedded: source ids, versions and the live set.

A source is a file (``file:{path}``), a symbol (``symbol:{fqName}``) or a memory entry
(``mem:{topic}/{id}``). Its version says which content its vectors were made from: a
file's digest; for a symbol, the digest of its primary declaring file (the ``.py``
before the ``.pyi``, then path order); for a memory entry a hash of its text. The live
set is read from the file nodes and the memory tree only (one scan each): a symbol's
record is read when it is embedded, never to find out whether it needs to be.
A file whose content was not projected (no ``content`` marker) is not a source yet, and
a file that declares symbols is embedded as its symbols only (``CODE_FILE_WINDOWS``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from repoctx.reconcile import file_node
from repoctx.store import Store
from repoctx.trees import Snapshot

from .chunks import memory_text

FILE, SYMBOL, MEMORY = "file", "symbol", "mem"
KINDS = (FILE, SYMBOL, MEMORY)
CODE_FILE_WINDOWS = False
"""Whether a file that declares symbols is a source of its own (windows over its body)
besides its symbols. Off (issue 18): on Django such windows are 36% of the vectors and
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


def live_sources(store: Store, snap: Snapshot, kinds: Iterable[str] = KINDS,
                 ) -> dict[str, Source]:
    """Every source that exists now, by id."""
    kinds = set(kinds)
    out: dict[str, Source] = {}
    if kinds & {FILE, SYMBOL}:
        nodes = _file_nodes(store, snap)
        if FILE in kinds:
            out.update(_files(store, nodes))
        if SYMBOL in kinds:
            out.update(_symbols(store, nodes))
    if MEMORY in kinds:
        out.update(_memory(store, snap))
    return out


def _file_nodes(store: Store, snap: Snapshot) -> list[file_node.FileNode]:
    return [file_node.file_node(path, rec)
            for path, rec in file_node.records_in(store, snap).items()]


def _files(store: Store, nodes: list[file_node.FileNode]) -> dict[str, Source]:
    return {source_id(FILE, n.path): Source(source_id(FILE, n.path), FILE,
                                            store.key("file", n.path), n.digest, n.path)
            for n in nodes if n.has(file_node.CONTENT)
            and (CODE_FILE_WINDOWS or not n.symbols)}


def _symbols(store: Store, nodes: list[file_node.FileNode]) -> dict[str, Source]:
    primary: dict[str, file_node.FileNode] = {}
    for node in nodes:
        if not node.has(file_node.SYMBOLS):
            continue
        rank = (node.path.endswith(".pyi"), node.path)
        for fq in node.symbols:
            best = primary.get(fq)
            if best is None or rank < (best.path.endswith(".pyi"), best.path):
                primary[fq] = node
    return {source_id(SYMBOL, fq): Source(source_id(SYMBOL, fq), SYMBOL,
                                          store.key("symbol", fq), node.digest, node.path)
            for fq, node in primary.items()}


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
