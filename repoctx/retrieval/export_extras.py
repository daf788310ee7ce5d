"""retrieval/export_extras — what repoctx adds to its ContextPull export before renaming
it into place: the search tables (their symbols read from the store), and the section
embeddings when an embedder is set.

An embedder failure never fails the export: the embeddings table is left as far as it
got (hybrid search then answers lexically) and the failure is reported.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from repoctx import vectors
from repoctx.errors import EmbedderError
from repoctx.reconcile import Declaration, file_node, symbol_record
from repoctx.store import Store

from .search_index import Declared, build_search_index

Finalize = Callable[[sqlite3.Connection, "set[int] | None"], None]


def export_extras(store: Store, warnings: list[str] | None = None) -> Finalize:
    """The ``finalize`` hook for ``export_store`` / ``export_directory``."""
    embedder = vectors.choose(store)

    def finalize(conn: sqlite3.Connection, changed: set[int] | None) -> None:
        build_search_index(conn, changed, stored_declarations(store))
        try:
            vectors.fill_embeddings(conn, embedder)
        except EmbedderError as exc:
            if warnings is not None:
                warnings.append(f"embeddings not filled: {exc}")

    return finalize


def stored_declarations(store: Store) -> Declared:
    """``Declared`` from ``store``: a file's declarations when its node's digest is the
    exported document's and its symbols were projected for that version."""

    def declared(path: str, sha256: str) -> dict[str, Declaration] | None:
        rec = store.get(store.key("file", path))
        if rec is None:
            return None
        node = file_node.file_node(path, rec)
        if node.digest != sha256 or not node.has(file_node.SYMBOLS):
            return None
        found = {}
        for fq in node.symbols:
            decl = symbol_record.declaration_at(store.get(store.key("symbol", fq)), path)
            if decl is not None:
                found[fq] = decl
        return found

    return declared
