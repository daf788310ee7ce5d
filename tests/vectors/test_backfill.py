"""The back-fill: embed what has no membership, retire what changed or went away."""

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from repoctx import open_store
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.trees import BY_FAMILY
from repoctx.vectors import backfill, semantic_hits, space_of
from repoctx.vectors.ann import ann_index
from repoctx.vectors.ann import index_record as ir
from repoctx.vectors.records import coverage
from repoctx.vectors.records import membership_record as mm
from repoctx.vectors.records import metadata_record as mr
from tests.reconcile.helpers import generated_repo, tree_values, write

from .conftest import make_repo, ws
from .hashed_embedder import HashedBagTestEmbedder

ROOT = Path(__file__).resolve().parents[2]


def vector_ids(store, space):
    with store.snapshot() as snap:
        return {k.split("/vec/", 1)[1] for k, _ in snap.scan(mr.space_prefix("demo", space))}


def test_first_backfill_embeds_everything_and_a_second_writes_nothing(indexed, embedder):
    store = indexed.store
    seen = []
    report = backfill(store, embedder, batch_texts=32, progress=lambda d, t: seen.append((d, t)))
    assert report.error is None and report.remaining == 0
    assert report.embedded > 50 and report.nil > 0 and report.vectors >= report.embedded
    assert seen[-1][0] == seen[-1][1] == report.embedded + report.nil and len(seen) > 2
    writes = store.trees.writes
    again = backfill(store, embedder)
    assert (again.embedded, again.retired, again.nil) == (0, 0, 0)
    assert store.trees.writes == writes
    assert "vectors (hashed-bag-test)" in report.text() and report.as_json()["live"] > 0


def test_a_first_backfill_writes_its_index_once_from_the_vectors_it_kept(indexed, embedder):
    store = indexed.store
    tree = BY_FAMILY[ir.FAMILY].name
    before = store.trees.generation(tree)
    batches = []
    report = backfill(store, embedder, batch_texts=8, progress=lambda d, t: batches.append(d))
    assert report.retrained and len(batches) > 5
    # one retrain (chunks, then state and manifest), not an append per batch
    assert store.trees.generation(tree) - before <= 2
    with store.snapshot() as snap:
        view = ann_index.load(snap, "demo", report.space)
        ids, _, matrix = ann_index.live_vectors(snap, "demo", report.space)
    assert view is not None and view.trained == len(ids) == report.vectors
    indexed_ids = set()
    with store.snapshot() as snap:
        for cell in range(view.nlist):
            for _, rec in snap.scan(ir.cell_prefix("demo", report.space, view.gen, cell)):
                indexed_ids.update(ir.posting_of(rec).ids)
    assert indexed_ids == set(ids)
    again = ann_index.rebuild(store, report.space)  # a retrain from the store: same index
    assert (again.nlist, again.nprobe, again.trained) == (view.nlist, view.nprobe, view.trained)
    assert np.array_equal(again.centroids, view.centroids)
    with store.snapshot() as snap:  # every vector finds itself first
        for row in (0, len(ids) // 2, len(ids) - 1):
            top = ann_index.search(snap, "demo", again, matrix[row], 1, nprobe=again.nlist)
            assert abs(top[0].score - 1.0) < 1e-5


def test_changed_files_are_re_embedded_and_removed_ones_retired(indexed, embedder):
    store, root = indexed.store, indexed.root
    first = backfill(store, embedder)
    space = first.space
    before = vector_ids(store, space)
    write(root, {"README.md": "# Payments\n\nShipping is free above fifty euros.\n"})
    (root / "pkg1" / "mod1.py").unlink()
    reconcile_pass(store, root, PassOptions(workers=1))
    report = backfill(store, embedder)
    assert report.embedded == 1 and report.retired >= 3  # the file and its symbols
    after = vector_ids(store, space)
    assert not any("pkg1/mod1.py" in v or "pkg1.mod1." in v for v in after)
    assert f"{space}/file:README.md#0" in after and after < before
    hits, path = semantic_hits(ws(store), "shipping free fifty euros", 3, embedder=embedder)
    assert path == "semantic.exact" and hits[0]["path"] == "README.md"
    with store.snapshot() as snap:
        assert not mm.is_on(snap.get(mm.member_key("demo", "file:pkg1/mod1.py")), space)


def test_a_failing_embedder_stops_without_raising_and_the_next_run_finishes(indexed):
    store = indexed.store
    broken = HashedBagTestEmbedder(fail_after=2)
    report = backfill(store, broken, batch_texts=16)
    assert report.error and "told to fail" in report.error and report.remaining > 0
    assert report.embedded > 0
    done = backfill(store, HashedBagTestEmbedder(), batch_texts=16)
    assert done.error is None and done.remaining == 0
    clean = HashedBagTestEmbedder()
    assert done.embedded + report.embedded + done.adopted >= 1
    again = backfill(store, clean)
    assert again.embedded == 0 and again.gap_rows == 257


def test_switching_the_embedder_rebuilds_in_the_new_space(indexed):
    store = indexed.store
    old, new = HashedBagTestEmbedder(model="test/a"), HashedBagTestEmbedder(dim=48, model="test/b")
    first = backfill(store, old)
    switched = backfill(store, new)
    assert switched.switched_from == first.space and switched.embedded == first.embedded
    assert vector_ids(store, first.space) == set()
    with store.snapshot() as snap:
        assert ann_index.load(snap, "demo", first.space) is None
        assert ann_index.load(snap, "demo", switched.space) is not None
        assert coverage.read(snap, "demo", switched.space) is not None
    hits, path = semantic_hits(ws(store), "refunds thirty days", 3, embedder=new)
    assert hits and all(h["vectorId"].startswith(switched.space) for h in hits)
    assert semantic_hits(ws(store), "refunds", 3, embedder=old)[1] == "keyword.no_vectors"


def test_two_stores_with_different_embedders_never_mix_spaces(tmp_path):
    root = tmp_path / "repo"
    make_repo(root)
    a_emb, b_emb = HashedBagTestEmbedder(model="test/a"), HashedBagTestEmbedder(model="test/b")
    stores = []
    for name in ("a", "b"):
        store = open_store(root, repo_id="demo", replica_id=f"r-{name}",
                           store_dir=tmp_path / name)
        reconcile_pass(store, root, PassOptions(workers=1))
        stores.append(store)
    a, b = stores
    backfill(a, a_emb)
    replicate(a, b)  # b receives a's replicated vector trees
    report = backfill(b, b_emb)
    assert report.adopted == 0 and report.embedded > 50  # a's space is not b's
    a_space, b_space = space_of(a_emb), space_of(b_emb)
    hits, _ = semantic_hits(ws(b), "refunds thirty days", 10, embedder=b_emb)
    assert hits and all(h["vectorId"].startswith(b_space + "/") for h in hits)
    with b.snapshot() as snap:
        for key, _ in snap.scan("repo/demo/vidx/"):
            assert key.startswith(f"repo/demo/vidx/{b_space}/")
        for _, rec in snap.scan(mr.space_prefix("demo", a_space)):
            assert mr.meta_of("", rec).space == a_space  # kept beside, never mixed in
    for s in stores:
        s.close()


def replicate(src, dst):
    """Ship every record of the replicated vector trees, merging (what sync does)."""
    with src.snapshot() as snap:
        rows = [(k, r) for family in ("vmem", "vec", "vpay")
                for k, r in snap.scan(f"repo/demo/{family}/")]
    with dst.batch() as batch:
        for key, rec in rows:
            batch.merge(key, rec)


def test_a_replica_adopts_what_another_embedded_with_the_same_embedder(tmp_path):
    root = tmp_path / "repo"
    make_repo(root)
    stores = [open_store(root, repo_id="demo", replica_id=f"r-{n}", store_dir=tmp_path / n)
              for n in ("a", "b")]
    for s in stores:
        reconcile_pass(s, root, PassOptions(workers=1))
    first = backfill(stores[0], HashedBagTestEmbedder())
    replicate(stores[0], stores[1])
    second = backfill(stores[1], HashedBagTestEmbedder())
    assert first.embedded > 50 and second.embedded == 0  # found by the membership scan
    assert second.digest_rebuilt and second.retrained  # and indexed from the payloads
    hits, _ = semantic_hits(ws(stores[1]), "refunds thirty days", 1,
                            embedder=HashedBagTestEmbedder())
    assert hits[0]["path"] == "README.md"
    for s in stores:
        s.close()


KILLED = """
import sys
from repoctx import open_store
from repoctx.vectors import backfill
from tests.vectors.hashed_embedder import HashedBagTestEmbedder
store = open_store(sys.argv[1], repo_id="demo", store_dir=sys.argv[2])
backfill(store, HashedBagTestEmbedder(delay=0.02), batch_texts=8)
"""


def vector_trees(store):
    values = tree_values(store)
    keep = ("membership", "payload", "metadata", "coverage")
    return {name: rows for name, rows in values.items() if name.split("-vector-")[-1] in keep}


def _vec_rows(root, store_dir):
    with open_store(root, repo_id="demo", store_dir=store_dir) as s, s.snapshot() as snap:
        return sum(1 for _ in snap.scan("repo/demo/vec/"))


def test_killing_the_backfill_midway_and_rerunning_converges(tmp_path):
    root = tmp_path / "repo"
    generated_repo(root, 120)
    clean_dir, killed_dir = tmp_path / "clean", tmp_path / "killed"
    for d in (clean_dir, killed_dir):
        with open_store(root, repo_id="demo", replica_id="r-x", store_dir=d) as s:
            reconcile_pass(s, root, PassOptions(workers=1))
    with open_store(root, repo_id="demo", store_dir=clean_dir) as s:
        backfill(s, HashedBagTestEmbedder(), batch_texts=8)
        clean = vector_trees(s)
    outcomes = []
    for batches in (1, 3):  # killed once its first, then its third, batch is committed
        proc = subprocess.Popen([sys.executable, "-c", KILLED, str(root), str(killed_dir)],
                                cwd=ROOT, stderr=subprocess.PIPE)
        seen = _vec_rows(root, killed_dir)
        deadline = time.monotonic() + 120  # polled, not slept: a loaded machine is slow
        while proc.poll() is None and time.monotonic() < deadline:
            if _vec_rows(root, killed_dir) >= seen + 8 * batches:
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        outcomes.append(proc.wait())
    assert -signal.SIGKILL in outcomes
    with open_store(root, repo_id="demo", store_dir=killed_dir) as s:
        with s.snapshot() as snap:
            partial = sum(1 for _ in snap.scan("repo/demo/vec/"))
        resumed = backfill(s, HashedBagTestEmbedder(), batch_texts=8)
        assert partial > 0 and resumed.embedded < resumed.live  # it resumed, not restarted
        assert vector_trees(s) == clean
        space = resumed.space
        with s.snapshot() as snap:
            view = ann_index.load(snap, "demo", space)
            ids, _, _ = ann_index.live_vectors(snap, "demo", space)
        assert view is not None and len(ids) == len(vector_ids(s, space))
        assert backfill(s, HashedBagTestEmbedder()).embedded == 0
