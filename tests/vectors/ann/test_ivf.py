"""Recall of the approximate index against exact search (the acceptance bound)."""

import numpy as np

from repoctx.vectors.ann import ann_index, ivf

N, DIM, QUERIES = 20_000, 384, 200


def clustered(n: int, rng: np.random.Generator, clusters: int = 100, spread: float = 1.2):
    """Unit vectors around ``clusters`` random centres (noise of norm about ``spread``)."""
    centres = rng.normal(size=(clusters, DIM)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    noise = rng.normal(size=(n, DIM)).astype(np.float32) * (spread / np.sqrt(DIM))
    points = centres[rng.integers(clusters, size=n)] + noise
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


def recall_at_10(store, view, data, queries) -> float:
    found = 0
    with store.snapshot() as snap:
        for q in queries:
            exact = {f"v{i}" for i in ivf.top_k(data @ q, 10)}
            approx = {c.vector_id for c in ann_index.search(snap, "demo", view, q, 10)}
            found += len(exact & approx)
    return found / (10 * len(queries))


def test_recall_at_10_on_20000_clustered_vectors_is_at_least_095(store):
    rng = np.random.default_rng(20261130)
    points = clustered(N + QUERIES, rng)
    data, queries = points[:N], points[N:]
    ids = [f"v{i}" for i in range(N)]
    view = ann_index.rebuild(store, "space", vectors=(ids, ["00" * 32] * N, data))
    assert view.nlist == round(np.sqrt(N)) and not view.exact
    assert recall_at_10(store, view, data, queries) >= 0.95


def test_partitions_and_ranking_helpers():
    assert ivf.partitions_for(1023) == 1 and ivf.partitions_for(1024) == 32
    assert ivf.partitions_for(20_000) == 141
    assert ivf.top_k(np.array([0.1, 0.9, 0.5, 0.9]), 3).tolist() == [1, 3, 2]
    assert ivf.top_k(np.array([]), 3).tolist() == []


def test_calibration_finds_more_probes_for_unclustered_data():
    rng = np.random.default_rng(1)
    uniform = rng.normal(size=(4000, 64)).astype(np.float32)
    uniform /= np.linalg.norm(uniform, axis=1, keepdims=True)
    grouped = clustered(4000, rng, clusters=20, spread=0.5)[:, :64].copy()
    grouped /= np.linalg.norm(grouped, axis=1, keepdims=True)
    probes = []
    for data in (uniform, grouped):
        centroids = ivf.train(data, ivf.partitions_for(len(data)))
        probes.append(ivf.calibrate(data, centroids, ivf.assign(data, centroids)))
    assert probes[0] > probes[1] >= 1
