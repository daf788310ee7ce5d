"""vectors/ann/ivf — the inverted-file index, as arithmetic on arrays (pure; no I/O).

Vectors are L2-normalised, so similarity is the dot product. Training runs spherical
k-means (k-means++-style seeding from a seeded generator, ``ITERATIONS`` Lloyd steps on
a sample) into about sqrt(n) partitions; a vector belongs to the partition of its
nearest centroid; a query scans the ``nprobe`` partitions whose centroids are nearest.
``calibrate`` picks the smallest ``nprobe`` whose recall@10 against exact search, on
queries drawn from the corpus (each excluded from its own answers), reaches the
target. Below ``EXACT_BELOW`` vectors there is one partition: the scan is exact.
Reference: Jégou, Douze, Schmid, "Product Quantization for Nearest Neighbor Search"
(2011), §4 (the inverted file with exact distances, IVF-Flat).
"""

from __future__ import annotations

import math

import numpy as np

EXACT_BELOW = 1024
ITERATIONS = 12
SAMPLE_PER_CELL = 64
RECALL_TARGET = 0.95
CALIBRATION_QUERIES = 128
CALIBRATION_K = 10


def partitions_for(n: int) -> int:
    """How many partitions an index of ``n`` vectors gets: 1 below ``EXACT_BELOW``."""
    return 1 if n < EXACT_BELOW else max(1, round(math.sqrt(n)))


def train(vectors: np.ndarray, nlist: int, seed: int = 0) -> np.ndarray:
    """``nlist`` unit centroids of ``vectors`` by spherical k-means on a sample."""
    rng = np.random.default_rng(seed)
    n = len(vectors)
    if nlist <= 1 or n <= nlist:
        return _unit(vectors.mean(axis=0, keepdims=True)) if nlist <= 1 else vectors[:nlist]
    sample = vectors[rng.choice(n, min(n, nlist * SAMPLE_PER_CELL), replace=False)]
    centroids = _seed(sample, nlist, rng)
    for _ in range(ITERATIONS):
        owner = assign(sample, centroids)
        sums = np.zeros_like(centroids)
        np.add.at(sums, owner, sample)
        counts = np.bincount(owner, minlength=nlist)
        empty = counts == 0
        sums[empty] = sample[rng.choice(len(sample), int(empty.sum()), replace=False)]
        centroids = _unit(sums)
    return centroids


def _seed(sample: np.ndarray, nlist: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ seeding (greedy over distance 1 - cosine), a centroid at a time."""
    chosen = [int(rng.integers(len(sample)))]
    best = 1.0 - sample @ sample[chosen[0]]
    for _ in range(1, nlist):
        weights = np.clip(best, 0, None) ** 2
        total = weights.sum()
        pick = int(rng.choice(len(sample), p=weights / total)) if total > 0 else \
            int(rng.integers(len(sample)))
        chosen.append(pick)
        best = np.minimum(best, 1.0 - sample @ sample[pick])
    return sample[chosen].copy()


def _unit(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return (m / np.where(norms == 0, 1, norms)).astype(np.float32)


def assign(vectors: np.ndarray, centroids: np.ndarray, block: int = 8192) -> np.ndarray:
    """The partition (nearest centroid) of each vector."""
    out = np.empty(len(vectors), dtype=np.int64)
    for start in range(0, len(vectors), block):
        out[start:start + block] = np.argmax(vectors[start:start + block] @ centroids.T, axis=1)
    return out


def probe(query: np.ndarray, centroids: np.ndarray, nprobe: int) -> np.ndarray:
    """The ``nprobe`` partitions nearest ``query``, nearest first."""
    scores = centroids @ query
    nprobe = min(nprobe, len(centroids))
    top = np.argpartition(-scores, nprobe - 1)[:nprobe]
    return top[np.argsort(-scores[top], kind="stable")]


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest scores, best first (ties by index)."""
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.lexsort((top, -scores[top]))]


def calibrate(vectors: np.ndarray, centroids: np.ndarray, owner: np.ndarray,
              target: float = RECALL_TARGET, seed: int = 0) -> int:
    """The smallest ``nprobe`` reaching ``target`` recall@10 on corpus-drawn queries."""
    nlist = len(centroids)
    if nlist <= 1:
        return 1
    rng = np.random.default_rng(seed + 1)
    picks = rng.choice(len(vectors), min(CALIBRATION_QUERIES, len(vectors)), replace=False)
    queries = vectors[picks]
    scores = queries @ vectors.T
    scores[np.arange(len(picks)), picks] = -np.inf  # a query is not its own neighbour
    truth = np.argpartition(-scores, CALIBRATION_K - 1, axis=1)[:, :CALIBRATION_K]
    cell_rank = np.argsort(np.argsort(-(queries @ centroids.T), axis=1), axis=1)
    vector_rank = cell_rank[:, owner]  # per query: the probe rank of each vector's cell
    for nprobe in _ladder(nlist):
        masked = np.where(vector_rank < nprobe, scores, -np.inf)
        found = np.argpartition(-masked, CALIBRATION_K - 1, axis=1)[:, :CALIBRATION_K]
        reached = np.isfinite(np.take_along_axis(masked, found, axis=1))
        hits = sum(len(set(t) & set(f[r])) for t, f, r in zip(truth, found, reached,
                                                              strict=True))
        if hits / truth.size >= target:
            return nprobe
    return nlist

def _ladder(nlist: int) -> list[int]:
    """Probe counts to try, growing by about a quarter each step."""
    out, p = [], 1
    while p < nlist:
        out.append(p)
        p = max(p + 1, int(p * 1.25))
    return [*out, nlist]
