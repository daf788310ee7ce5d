"""`contextpull/store_export` — export the files a repoctx store knows into a ContextPull store.

Reads the store through one snapshot and the files' current bytes from disk. The
documents are the live file nodes (``repo/{id}/file/…``) less the ignore files and
files now missing, binary or over ``max_bytes``. When a file's bytes still hash to its
node's digest, the node's token count is the document's (no recount) and a Python
file's definitions come from its symbol records (each symbol's declaration for that
path); otherwise its tokens are counted and its symbols extracted afresh. Definitions
are only looked up for documents the writer sections afresh.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from repoctx.contextpull.definitions import SymbolSpan, definitions_from_spans, spans_of
from repoctx.contextpull.directory import DEFAULT_MAX_BYTES, read_document
from repoctx.contextpull.documents import Definition, SourceDocument, decode_text, language_for
from repoctx.contextpull.index_text import DEFAULT_INDEX_BUDGET
from repoctx.contextpull.writer import ExportReport, write_export
from repoctx.extract import extract
from repoctx.reconcile import FileNode, file_node, symbol_record
from repoctx.reconcile.walk import IGNORE_FILES
from repoctx.store import Store

if TYPE_CHECKING:
    from repoctx.trees import Snapshot

PYTHON = "python"


def file_nodes(store: Store, snapshot: Snapshot) -> dict[str, FileNode]:
    """The live file nodes of the store's repository, by path."""
    prefix = f"{store.key()}/file/"
    return {
        key[len(prefix) :]: file_node.file_node(key[len(prefix) :], rec)
        for key, rec in snapshot.scan(prefix)
    }


@dataclass(frozen=True)
class _Known:
    """What the store says of one exported file, checked against its current bytes."""

    node: FileNode
    current: bool  # the bytes on disk still hash to the node's digest


class StoreDefinitions:
    """``definitions_for`` of the writer: Python definitions from symbol records."""

    def __init__(self, store: Store, snapshot: Snapshot, known: dict[str, _Known]) -> None:
        self._store, self._snapshot, self._known = store, snapshot, known

    def spans(self, path: str, text: str) -> list[SymbolSpan]:
        """The declarations of ``path``: stored when current, else extracted afresh."""
        known = self._known.get(path)
        if known is None or not known.current or not known.node.has(file_node.SYMBOLS):
            return spans_of(extract(path, text))
        spans = []
        for fq_name in known.node.symbols:
            rec = self._snapshot.get(self._store.key("symbol", fq_name))
            decl = symbol_record.declarations(rec).get(path)
            if decl is not None:
                spans.append(SymbolSpan(fq_name, decl.kind, decl.start_line, decl.end_line))
        return spans

    def __call__(self, path: str, data: bytes) -> tuple[Definition, ...] | None:
        """Definitions of a Python document; ``None`` for other languages."""
        known = self._known.get(path)
        language = known.node.language if known is not None else None
        if (language or language_for(path)) != PYTHON:
            return None
        text = decode_text(data)
        return definitions_from_spans(path, text, self.spans(path, text))


def _documents(
    root: Path, nodes: dict[str, FileNode], max_bytes: int, known: dict[str, _Known]
) -> Iterator[SourceDocument]:
    for path in sorted(nodes):
        if PurePosixPath(path).name in IGNORE_FILES:
            continue
        data = read_document(root / path, max_bytes)
        if data is None:
            continue
        node = nodes[path]
        current = hashlib.sha256(data).hexdigest() == node.digest
        known[path] = _Known(node, current)
        language = language_for(path) or node.language
        tokens = node.tokens if current else None
        yield SourceDocument(path, data, language=language, tokens=tokens)


def export_store(
    store: Store,
    root: Path,
    out: Path,
    *,
    previous: Path | None = None,
    index_budget: int = DEFAULT_INDEX_BUDGET,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> ExportReport:
    """Export the files ``store`` knows under ``root`` into the ContextPull store ``out``.

    ``previous`` (often ``out`` itself) lends unchanged documents, as in ``write_export``.
    """
    root = Path(root)
    with store.snapshot() as snapshot:
        nodes = file_nodes(store, snapshot)
        known: dict[str, _Known] = {}
        documents = list(_documents(root, nodes, max_bytes, known))
        return write_export(
            out, documents, corpus_root=str(root.resolve()), previous=previous,
            index_budget=index_budget, definitions_for=StoreDefinitions(store, snapshot, known),
        )  # fmt: skip
