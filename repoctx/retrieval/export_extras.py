"""retrieval/export_extras — what repoctx adds to its ContextPull export before renaming
it into place: the search tables, and the section embeddings when an embedder is set.

An embedder failure never fails the export: the embeddings table is left as far as it
got (hybrid search then answers lexically) and the failure is reported.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from repoctx import vectors
from repoctx.errors import EmbedderError
from repoctx.store import Store

from .search_index import build_search_index

Finalize = Callable[[sqlite3.Connection, "set[int] | None"], None]


def export_extras(store: Store, warnings: list[str] | None = None) -> Finalize:
    """The ``finalize`` hook for ``export_store`` / ``export_directory``."""
    embedder = vectors.choose(store)

    def finalize(conn: sqlite3.Connection, changed: set[int] | None) -> None:
        build_search_index(conn, changed)
        try:
            vectors.fill_embeddings(conn, embedder)
        except EmbedderError as exc:
            if warnings is not None:
                warnings.append(f"embeddings not filled: {exc}")

    return finalize
