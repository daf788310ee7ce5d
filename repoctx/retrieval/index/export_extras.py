"""retrieval/index/export_extras — what repoctx adds to its ContextPull export before renaming
it into place: the search tables (their symbols read from the store), and the section
embeddings when an embedder is set.

An embedder failure never fails the export: the embeddings table is left as far as it
got (hybrid search then answers lexically) and the failure is reported.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Mapping

from repoctx import vectors
from repoctx.errors import EmbedderError
from repoctx.reconcile import Declaration
from repoctx.reconcile.nodes import file_node, symbol_record
from repoctx.retrieval.index.tables import Declared, SearchRows, build_search_index
from repoctx.store import Store
from repoctx.trees import decode_stored, visible

Finalize = Callable[[sqlite3.Connection, "set[int] | None"], None]


def export_extras(store: Store, warnings: list[str] | None = None) -> Finalize:
    """The ``finalize`` hook for ``export_store`` / ``export_directory``."""
    return ExportExtras(store, warnings)


class ExportExtras:
    """The hook itself: the search tables and the embeddings. A full export builds the
    search tables' rows in its own pass (``section_rows``, ``contextpull/write/extra_rows``),
    and the hook then only fills the embeddings; after a patch it updates them."""

    section_rows = SearchRows()

    def __init__(self, store: Store, warnings: list[str] | None = None) -> None:
        self.store, self.warnings = store, warnings
        self.embedder = vectors.choose(store)

    def __call__(self, conn: sqlite3.Connection, changed: set[int] | None) -> None:
        """Build or update the search tables, then fill the embeddings."""
        build_search_index(conn, changed, stored_declarations(self.store))
        try:
            vectors.fill_embeddings(conn, self.embedder)
        except EmbedderError as exc:
            if self.warnings is not None:
                self.warnings.append(f"embeddings not filled: {exc}")


def stored_declarations(store: Store) -> Declared:
    """``Declared`` from ``store``: a file's declarations when its node's digest is the
    exported document's and its symbols were projected for that version.

    The symbol records are read undecoded (``StoredDeclarations``): a full build decodes
    them in its workers, so the lookup costs this process a read per symbol only."""

    def declared(path: str, sha256: str) -> StoredDeclarations | None:
        with store.snapshot() as snap:
            rec = snap.get(store.key("file", path))
            if rec is None:
                return None
            node = file_node.file_node(path, rec)
            if node.digest != sha256 or not node.has(file_node.SYMBOLS):
                return None
            stored = []
            for fq in node.symbols:
                key = store.key("symbol", fq)
                stored.append((fq, key, snap.get_encoded(key)))
            return StoredDeclarations(path, snap.now_ms, tuple(stored))

    return declared


class StoredDeclarations(Mapping[str, Declaration]):
    """The declarations of one file, read from the store as bytes and decoded on first
    use: a mapping fq -> ``Declaration`` of the symbols the file declares (a symbol the
    store hides at ``now_ms``, or which ``path`` does not declare, is left out). Pickled,
    it carries the bytes only, cheap to send to a worker process."""

    def __init__(self, path: str, now_ms: int,
                 stored: tuple[tuple[str, str, bytes | None], ...]) -> None:
        self.path, self.now_ms, self.stored = path, now_ms, stored
        self._decoded: dict[str, Declaration] | None = None

    def __reduce__(self) -> tuple:
        return (StoredDeclarations, (self.path, self.now_ms, self.stored))

    def _found(self) -> dict[str, Declaration]:
        if self._decoded is None:
            found = {}
            for fq, key, raw in self.stored:
                rec = None if raw is None else decode_stored(key, raw)
                if rec is None or not visible(rec, self.now_ms):
                    continue
                decl = symbol_record.declaration_at(rec, self.path)
                if decl is not None:
                    found[fq] = decl
            self._decoded = found
        return self._decoded

    def __getitem__(self, fq: str) -> Declaration:
        return self._found()[fq]

    def __iter__(self) -> Iterator[str]:
        return iter(self._found())

    def __len__(self) -> int:
        return len(self._found())
