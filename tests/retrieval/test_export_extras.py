"""retrieval/export_extras: the search tables, and embeddings that never fail the export."""

import sqlite3

from repoctx import open_store, vectors
from repoctx.errors import EmbedderError
from repoctx.retrieval import export_extras, has_search_index
from tests.vectors.hashed_embedder import HashedBagTestEmbedder


def test_the_export_carries_the_search_tables(shop):
    with sqlite3.connect(shop.export) as conn:
        assert has_search_index(conn)
        assert conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 0  # none


def test_an_embedder_fills_the_embeddings(shop, tmp_path, monkeypatch):
    monkeypatch.setattr(vectors, "choose", lambda store: HashedBagTestEmbedder())
    copy = tmp_path / "copy.sqlite"
    with sqlite3.connect(shop.export) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    with sqlite3.connect(copy) as conn:
        export_extras(shop.store)(conn, None)
        assert conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] > 0


def test_an_embedder_failure_is_a_warning(shop, tmp_path, monkeypatch):
    def broken(conn, embedder):
        raise EmbedderError("model missing")

    monkeypatch.setattr(vectors, "fill_embeddings", broken)
    warnings: list[str] = []
    conn = sqlite3.connect(":memory:")
    with sqlite3.connect(shop.export) as src:
        src.backup(conn)
    with open_store(tmp_path, repo_id="x") as store:  # the hook reads symbols from it
        export_extras(store, warnings)(conn, None)
    assert warnings == ["embeddings not filled: model missing"]
    assert has_search_index(conn)
