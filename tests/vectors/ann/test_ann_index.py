import numpy as np

from repoctx.vectors.ann import ann_index, ivf
from repoctx.vectors.ann import index_record as ir


def unit(rng, n, dim=32):
    m = rng.normal(size=(n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def keys(store, prefix):
    with store.snapshot() as snap:
        return [k for k, _ in snap.scan(prefix)]


def test_exact_below_1024_then_a_new_generation_replaces_the_old(store):
    rng = np.random.default_rng(3)
    small = unit(rng, 500)
    ids = [f"v{i}" for i in range(500)]
    first = ann_index.rebuild(store, "s", vectors=(ids, ["ab" * 32] * 500, small))
    assert first.gen == 1 and first.exact and first.nlist == 1
    with store.snapshot() as snap:
        view = ann_index.load(snap, "demo", "s")
        top = ann_index.search(snap, "demo", view, small[7], 3)
    assert top[0].vector_id == "v7" and abs(top[0].score - 1) < 1e-5
    big = unit(rng, 2000)
    ids = [f"w{i}" for i in range(2000)]
    second = ann_index.rebuild(store, "s", vectors=(ids, ["cd" * 32] * 2000, big))
    assert second.gen == 2 and second.nlist == ivf.partitions_for(2000) > 1
    assert keys(store, ir.gen_prefix("demo", "s", 1)) == []  # range-deleted, reaped
    with store.trees.env.begin() as txn:  # gone from LMDB, not just hidden
        db = store.trees.dbs["repo-context-vector-index"]
        assert not any(k.startswith(b"repo/demo/vidx/s/g000001/") for k, _ in txn.cursor(db))
    with store.snapshot() as snap:
        view = ann_index.load(snap, "demo", "s")
        assert view.gen == 2 and len(view.centroids) == view.nlist
        assert ann_index.search(snap, "demo", view, big[5], 1)[0].vector_id == "w5"


def test_flushes_append_and_drift_asks_for_a_retrain(store):
    rng = np.random.default_rng(4)
    with store.snapshot() as snap:
        fresh = ann_index.next_generation(snap, "demo", "s")
    writer = ann_index.IndexWriter("demo", "s", 32, None, fresh)
    for i, vec in enumerate(unit(rng, 100)):
        writer.add(f"v{i}", "ef" * 32, vec.astype("<f4").tobytes())
    with store.batch() as b:
        writer.flush(b, store.tick(), "r")
    assert ann_index.needs_retrain(writer.view)  # trained on nothing: all drift
    with store.snapshot() as snap:
        view = ann_index.load(snap, "demo", "s")
        assert view.chunks == [1] and view.adds == 100
    rebuilt = ann_index.rebuild(store, "s", vectors=([f"v{i}" for i in range(10)],
                                                     ["ef" * 32] * 10, unit(rng, 10)))
    assert rebuilt.trained == 10 and not ann_index.needs_retrain(rebuilt)
    rebuilt.adds = 3
    assert ann_index.needs_retrain(rebuilt)


def test_drop_removes_the_whole_space(store):
    rng = np.random.default_rng(5)
    ann_index.rebuild(store, "s", vectors=(["a"], ["00" * 32], unit(rng, 1)))
    ann_index.rebuild(store, "t", vectors=(["b"], ["00" * 32], unit(rng, 1)))
    ann_index.drop(store, "s")
    assert keys(store, ir.space_prefix("demo", "s")) == []
    assert keys(store, ir.space_prefix("demo", "t")) != []


def test_live_vectors_name_ids_as_their_metadata_keys_do_for_escaped_names(tmp_path):
    from repoctx import open_store
    from repoctx.reconcile import PassOptions, reconcile_pass
    from repoctx.vectors import backfill
    from repoctx.vectors.records import metadata_record as mr
    from tests.reconcile.helpers import write
    from tests.vectors.hashed_embedder import HashedBagTestEmbedder

    root = tmp_path / "repo"
    write(root, {"a\tb.md": "# Tabs\n\nA file whose name holds a tab.\n",
                 "plain.md": "# Plain\n\nAn ordinary file.\n"})
    with open_store(root, repo_id="demo") as store:
        reconcile_pass(store, root, PassOptions(workers=1))
        space = backfill(store, HashedBagTestEmbedder()).space
        with store.snapshot() as snap:
            ids, _, _ = ann_index.live_vectors(snap, "demo", space)
            assert any("a\tb.md" in vid for vid in ids)
            assert all(snap.get(mr.metadata_key("demo", vid)) is not None for vid in ids)
