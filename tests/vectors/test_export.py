import numpy as np

from repoctx.contextpull import Reader, export_directory
from repoctx.vectors import fill_embeddings
from repoctx.vectors.semantic import query_embedder

from .hashed_embedder import HashedBagTestEmbedder


def test_fill_embeddings_makes_contextpull_hybrid_search_work(tmp_path):
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "refunds.md").write_text("# Refunds\n\nMoney back within thirty days.\n")
    (corpus / "shipping.md").write_text("# Shipping\n\nParcels leave the warehouse daily.\n")
    out = tmp_path / "cp.sqlite"
    export_directory(corpus, out)
    import sqlite3
    emb = HashedBagTestEmbedder()
    conn = sqlite3.connect(out)
    assert fill_embeddings(conn, emb) == 2
    assert fill_embeddings(conn, emb) == 0  # only sections without one
    conn.commit()
    rows = conn.execute("SELECT model, dim, vec FROM embeddings").fetchall()
    for model, dim, blob in rows:
        vec = np.frombuffer(blob, dtype="<f4")
        assert model == emb.model and dim == 64 and abs(np.linalg.norm(vec) - 1) < 1e-5
    other = HashedBagTestEmbedder(model="test/other")
    assert fill_embeddings(conn, other) == 2  # one model per table: replaced
    conn.commit()
    conn.close()
    with Reader(out, embed=query_embedder(other)) as reader:
        found = reader.search("money back thirty days", mode="hybrid")
    assert found["mode"] == "hybrid" and found["hits"][0]["doc"] == "refunds.md"


def test_no_embedder_fills_nothing(tmp_path):
    import sqlite3
    conn = sqlite3.connect(":memory:")
    assert fill_embeddings(conn, None) == 0
