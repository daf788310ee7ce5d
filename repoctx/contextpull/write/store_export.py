"""`contextpull/write/store_export` — export the files a repoctx store knows into a ContextPull
store.

Reads the store through one snapshot and the files' current bytes from disk. The
documents are the live file nodes (``repo/{id}/file/…``) less the ignore files and
files now missing, binary or over ``max_bytes``. When a file's bytes still hash to its
node's digest, the node's token count is the document's and a Python file's
definitions come from its symbol records (each symbol's declaration for that path);
otherwise its symbols are extracted afresh and its token count is left NULL (nothing is
counted here: the store has not seen these bytes yet; the next index and export fill it
in). Definitions are only looked up for documents the writer sections afresh, a chunk
of documents at a time, as the pool's window reaches it (``StoreDefinitions.portion``).
Files are handed to the writer unread, with their stat: a re-export reads only those
whose stat the previous export cannot vouch for.
Re-exporting onto the previous export patches it in place, in one transaction, rather
than writing a new file renamed into place as DESIGN §5 has it (``contextpull/write/patch``;
docs/store.md, "In-place patches": copying the whole file was most of a one-file index).
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from repoctx.contextpull.sections.definitions import SymbolSpan, definitions_from_spans, spans_of
from repoctx.contextpull.sections.documents import (
    Definition,
    SourceDocument,
    decode_text,
    language_for,
)
from repoctx.contextpull.write.directory import DEFAULT_MAX_BYTES
from repoctx.contextpull.write.files import UnreadFile
from repoctx.contextpull.write.index_text import DEFAULT_INDEX_BUDGET
from repoctx.contextpull.write.pool import Item
from repoctx.contextpull.write.writer import ExportReport, Finalize, write_export
from repoctx.crdt import record
from repoctx.crdt.record import Record
from repoctx.errors import CorruptRecordError
from repoctx.extract import extract, extractor_for, language_of
from repoctx.reconcile.nodes import file_node, symbol_record
from repoctx.reconcile.walk import IGNORE_FILES
from repoctx.store import Store
from repoctx.trees import decode_stored, make_key, visible

if TYPE_CHECKING:
    from repoctx.trees import Snapshot


class _Known:
    """What the store says of one exported file, checked against its current bytes.

    The node record is decoded field by field, when a field is first asked for: a
    one-file re-export needs little more than each node's digest, and decoding whole
    nodes costs ~40% of one on Django.
    """

    def __init__(self, rec: Record, sha256: str) -> None:
        self.rec = rec
        self.current = file_node.field_of(rec, "digest") == sha256  # the bytes still hash to it

    @cached_property
    def language(self) -> str | None:
        """The node's language."""
        return file_node.field_of(self.rec, "language")

    @cached_property
    def tokens(self) -> int | None:
        """The node's token count when it counts these bytes, else None."""
        return file_node.field_of(self.rec, "tokens") if self.current else None

    @cached_property
    def symbols(self) -> tuple[str, ...] | None:
        """The names the node declares when they are current, else None."""
        return _projected_symbols(self.rec) if self.current else None


def _projected_symbols(node: Record) -> tuple[str, ...] | None:
    """The names ``node`` declares when its symbols were projected (for its digest), else
    None."""
    if file_node.SYMBOLS not in (file_node.field_of(node, "markers") or ()):
        return None
    return file_node.symbols_of(node)


class StoreDefinitions:
    """The writer's definitions source (``contextpull/write/pool.Splits``): Python definitions
    from symbol records, read one chunk of documents at a time.

    ``portion`` reads, through the snapshot, the stored bytes of the symbol records a
    chunk's files may ask for (a lookup each, nothing decoded) and gives them, with the
    chunk's nodes, to a ``ChunkDefinitions`` that the chunk's worker decodes and asks. So
    this process holds a few chunks' records at a time, not the whole symbol tree's.
    """

    def __init__(self, store: Store, snapshot: Snapshot, known: dict[str, _Known],
                 nodes: Mapping[str, Record] | None = None) -> None:
        self._snapshot, self._known, self._now_ms = snapshot, known, snapshot.now_ms
        self._nodes = nodes or {}  # for paths not read yet: the symbols their node names
        self._repo_id = store.repo_id

    def _announced(self, path: str) -> tuple[str, ...] | None:
        """The names a document may ask for: the current stored ones of a file read, those
        its node names of a file not read yet (read in a worker: a superset)."""
        if path in self._known:
            return self._known[path].symbols
        node = self._nodes.get(path)
        return None if node is None else _projected_symbols(node)

    def portion(self, items: Sequence[Item]) -> tuple[list[Item], ChunkDefinitions]:
        """``items``, each unread file's node lookups bound to the chunk's own (so the
        pair pickles small), and the definitions source of those items alone."""
        paths = [item.path for item in items]
        nodes = {p: self._nodes[p] for p in paths if p in self._nodes}
        known = {p: self._known[p] for p in paths if p in self._known}
        announced = {p: self._announced(p) for p in paths}
        names = sorted({name for found in announced.values() for name in found or ()})
        encoded = {}
        for fq_name in names:  # hidden ones too: ``ChunkDefinitions`` judges
            raw = self._snapshot.get_encoded(make_key(self._repo_id, "symbol", fq_name))
            if raw is not None:
                encoded[fq_name] = raw
        fetched = frozenset(p for p, found in announced.items() if found is not None)
        source = ChunkDefinitions(self._repo_id, self._now_ms, nodes, known, encoded, fetched)
        bound = [replace(item, nodes=nodes, known=known) if isinstance(item, _NodeFile)
                 else item for item in items]  # fmt: skip
        return bound, source


class ChunkDefinitions:
    """The definitions of one chunk's documents, from the records ``StoreDefinitions``
    read for them: touches neither the snapshot nor LMDB, so it runs in a worker, which
    decodes the records. A symbol record that does not decode costs its file nothing:
    the file's symbols are then extracted afresh, as for a file the store has not seen.
    """

    def __init__(self, repo_id: str, now_ms: int, nodes: Mapping[str, Record],
                 known: dict[str, _Known], encoded: dict[str, bytes],
                 fetched: frozenset[str]) -> None:
        self._repo_id, self._now_ms = repo_id, now_ms
        self._nodes, self._known = nodes, known  # ``known`` learns the chunk's files as read
        self._encoded = encoded  # fully-qualified name -> its stored record
        self._fetched = fetched  # paths whose symbols' records were read
        self._decoded: dict[str, Record | None] = {}  # of ``_decoded_path``'s symbols
        self._decoded_path: str | None = None

    def _stored(self, path: str) -> tuple[str, ...] | None:
        """The symbol names the store holds for ``path`` when they are current, else None."""
        known = self._known.get(path)
        return None if known is None or path not in self._fetched else known.symbols

    def _record(self, fq_name: str) -> Record | None:
        """The decoded record of ``fq_name`` (None when not stored); raises
        ``CorruptRecordError``. Memoised for the document at hand: its definitions and
        its ``declared`` decode each record once."""
        if fq_name not in self._decoded:
            raw = self._encoded.get(fq_name)
            self._decoded[fq_name] = None if raw is None else decode_stored(
                make_key(self._repo_id, "symbol", fq_name), raw)
        return self._decoded[fq_name]

    def _for_document(self, path: str) -> None:
        """Forget the records decoded for another document."""
        if self._decoded_path != path:
            self._decoded, self._decoded_path = {}, path

    def _declaration(self, fq_name: str, path: str) -> symbol_record.Declaration | None:
        """What ``path`` declares as ``fq_name`` (a tombstone or expired record: nothing);
        raises ``CorruptRecordError``."""
        rec = self._record(fq_name)
        if rec is None:
            return None
        return None if _expired(rec, self._now_ms) else symbol_record.declaration_at(rec, path)

    def spans(self, path: str, text: str) -> list[SymbolSpan]:
        """The declarations of ``path``: stored when current, else extracted afresh."""
        names = self._stored(path)
        self._for_document(path)
        try:
            found = [] if names is None else [(n, self._declaration(n, path)) for n in names]
        except CorruptRecordError:
            names = None  # a symbol record is unreadable: the file itself is not
        if names is None:
            return spans_of(extract(path, text))
        return [SymbolSpan(name, d.kind, d.start_line, d.end_line) for name, d in found if d]

    def declared(self, path: str, sha256: str) -> list[SymbolSpan] | None:
        """The store's declarations of ``path`` when its node's digest is ``sha256`` and
        its symbols were projected for those bytes (each visible symbol record's
        declaration for ``path``, as ``retrieval/index/export_extras.stored_declarations``
        reads them), else None, as for a symbol record that does not decode."""
        node = self._nodes.get(path)
        if node is None or path not in self._fetched:
            return None
        names = _projected_symbols(node) if file_node.field_of(node, "digest") == sha256 else None
        if names is None:
            return None
        self._for_document(path)
        found = []
        try:
            for fq_name in names:
                rec = self._record(fq_name)
                if rec is None or not visible(rec, self._now_ms):
                    continue
                decl = symbol_record.declaration_at(rec, path)
                if decl is not None:
                    found.append(SymbolSpan(fq_name, decl.kind, decl.start_line, decl.end_line))
        except CorruptRecordError:
            return None
        return found

    def __call__(self, path: str, data: bytes) -> tuple[Definition, ...] | None:
        """Definitions of a document in a language with an extractor; ``None`` otherwise."""
        if extractor_for(language_of(path)) is None:
            return None
        text = decode_text(data)
        return definitions_from_spans(path, text, self.spans(path, text))


def _expired(rec: Record, now_ms: int) -> bool:
    expires = record.expires_ms(rec)
    return expires is not None and expires <= now_ms


@dataclass(frozen=True, slots=True)
class _NodeFile(UnreadFile):
    """An unread file with a live file node. Read, it becomes a document carrying what the
    node says of these bytes (its language; its token count when its digest is theirs),
    and ``known`` learns the node's view of it for ``StoreDefinitions``."""

    nodes: Mapping[str, Record]  # the node is looked up (and checked) when read
    known: dict[str, _Known]

    def read_checked(self) -> SourceDocument | str:
        """The document, or why the file is no longer an exportable text file."""
        document = UnreadFile.read_checked(self)
        if isinstance(document, str):
            return document
        sha = hashlib.sha256(document.data).hexdigest()
        stored = self.known[self.path] = _Known(self.nodes[self.path], sha)
        language = language_for(self.path) or stored.language
        return replace(document, language=language, tokens=stored.tokens, sha256=sha)


def _documents(
    root: Path, records: Mapping[str, Record], max_bytes: int, known: dict[str, _Known],
    walked: Mapping[str, tuple[int, int]],
) -> Iterator[_NodeFile]:
    """The files of ``records`` to export, unread, with the stat they have now: the one
    ``walked`` holds (the walk of the pass just before, when given), else taken here."""
    base = str(root)
    for path in sorted(records):
        if path.rpartition("/")[2] in IGNORE_FILES:
            continue
        location = os.path.join(base, path)
        size_mtime = walked.get(path)
        if size_mtime is None:
            try:
                found = os.stat(location)
            except OSError:
                continue  # gone since the index: it simply is not exported
            if not stat.S_ISREG(found.st_mode):
                continue
            size_mtime = found.st_size, found.st_mtime_ns
        if size_mtime[0] <= max_bytes:
            yield _NodeFile(path, *size_mtime, location, max_bytes, records,
                            known)  # fmt: skip


def export_store(
    store: Store,
    root: Path,
    out: Path,
    *,
    previous: Path | None = None,
    index_budget: int = DEFAULT_INDEX_BUDGET,
    max_bytes: int = DEFAULT_MAX_BYTES,
    finalize: Finalize | None = None,
    nodes: file_node.Lent | None = None,
) -> ExportReport:
    """Export the files ``store`` knows under ``root`` into the ContextPull store ``out``.

    ``previous`` (often ``out`` itself) lends unchanged documents, as in ``write_export``;
    each file's stat is recorded, so the next export reads only files whose stat changed.
    ``nodes`` (a pass's scan of the file nodes and its walk's stats, ``file_node.Lent``)
    spares scanning the nodes again while the store is still as that pass left it, and
    stat'ing the files its walk listed.
    """
    root = Path(root)
    with store.snapshot() as snapshot:
        records = file_node.records_in(store, snapshot, nodes)
        known: dict[str, _Known] = {}
        # before any stat is taken (``contextpull/write/files``): the pass's walk took them
        started_ns = time.time_ns() if nodes is None else nodes.since_ns
        walked = {} if nodes is None else nodes.stats
        documents = list(_documents(root, records, max_bytes, known, walked))
        return write_export(
            out, documents, corpus_root=str(root.resolve()), previous=previous,
            index_budget=index_budget,
            definitions_for=StoreDefinitions(store, snapshot, known, records),
            finalize=finalize, stats_since_ns=started_ns,
        )  # fmt: skip
