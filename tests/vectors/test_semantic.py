import numpy as np

from repoctx.vectors import NONE, backfill, semantic_hits
from repoctx.vectors.semantic import query_embedder

from .conftest import ws
from .hashed_embedder import HashedBagTestEmbedder


def test_retrieval_paths(indexed, embedder):
    store = indexed.store
    assert semantic_hits(ws(store), "refunds", 5) == ([], "keyword.no_embedder")
    assert semantic_hits(ws(store), "refunds", 5, embedder=NONE)[1] == "keyword.no_embedder"
    assert semantic_hits(ws(store), "refunds", 5, embedder=embedder) == ([], "keyword.no_vectors")
    backfill(store, embedder)
    hits, path = semantic_hits(ws(store), "refunds accepted thirty days", 5, embedder=embedder)
    assert path == "semantic.exact" and hits[0]["path"] == "README.md"
    assert hits[0]["reasons"] == ["semantic"] and hits[0]["key"] == "repo/demo/file/README.md"
    assert len({h["sourceId"] for h in hits}) == len(hits)  # one hit per source
    broken = HashedBagTestEmbedder(fail_after=0)
    assert semantic_hits(ws(store), "refunds", 5, embedder=broken) == (
        [], "keyword.embedder_failed")


def test_approximate_above_1024_vectors(tmp_path):
    from repoctx import open_store
    from repoctx.reconcile import PassOptions, reconcile_pass
    from tests.reconcile.helpers import generated_repo

    root = tmp_path / "repo"
    generated_repo(root, 600)  # code files are embedded as their symbols (~2 each)
    with open_store(root, repo_id="demo", store_dir=tmp_path / "s") as store:
        reconcile_pass(store, root, PassOptions(workers=1))
        embedder = HashedBagTestEmbedder()
        report = backfill(store, embedder)
        assert report.vectors >= 1024 and report.retrained
        hits, path = semantic_hits(ws(store), "class Widget7 Base2", 3, embedder=embedder)
        assert path == "semantic.approximate" and hits
        exact, path = semantic_hits(ws(store), "class Widget7 Base2", 3, embedder=embedder,
                                    nprobe=10_000)
        assert path == "semantic.exact"  # (the 64-bucket test hash has collisions)
        assert "symbol:pkg7.mod7.Widget7" in [h["sourceId"] for h in exact]


def test_query_embedder_for_the_contextpull_reader():
    emb = HashedBagTestEmbedder()
    vec = query_embedder(emb)(emb.model, "hello world")
    assert len(vec) == 64 and abs(np.linalg.norm(vec) - 1) < 1e-5
