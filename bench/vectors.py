"""Approximate vector index: recall@10 against exact search, query latency, build time.

Two sets of 20,000 unit vectors of 384 dimensions (numpy, seeded): *clustered* (100
centres, noise of about the centres' norm) and *unclustered* (uniform on the sphere),
200 held-out queries each. The index is the persisted one (``vectors.ann.ann_index``) in a
temporary store; "exact" is the same store's vectors scanned in full (``nprobe`` = all
partitions). Reported: partitions, calibrated probes, recall@10, query p50/p95 and the
retrain time. With ``repoctx[embed]`` installed, all-MiniLM-L6-v2 throughput on this
machine's CPU is reported too (1,600-character windows of repoctx's own source, and
short symbol texts). Target: recall@10 >= 0.95 on the clustered set.

    python bench/vectors.py [--n 20000] [--out docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _report beside us

from _report import write_section  # noqa: E402

from repoctx import open_store  # noqa: E402
from repoctx.vectors.ann import ann_index, ivf
from repoctx.vectors.chunks import windows  # noqa: E402

DIM, QUERIES, K = 384, 200, 10
ROOT = Path(__file__).resolve().parents[1]


def clustered(n: int, rng: np.random.Generator) -> np.ndarray:
    centres = rng.normal(size=(100, DIM)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    points = centres[rng.integers(100, size=n)] + rng.normal(size=(n, DIM)).astype(
        np.float32) * (1.2 / np.sqrt(DIM))
    return points / np.linalg.norm(points, axis=1, keepdims=True)


def uniform(n: int, rng: np.random.Generator) -> np.ndarray:
    points = rng.normal(size=(n, DIM)).astype(np.float32)
    return points / np.linalg.norm(points, axis=1, keepdims=True)


def measure(name: str, points: np.ndarray, n: int, probes: int | None = None) -> dict:
    data, queries = points[:n].astype(np.float32), points[n:].astype(np.float32)
    ids = [f"v{i}" for i in range(n)]
    with tempfile.TemporaryDirectory() as tmp, \
            open_store(tmp, repo_id="bench", store_dir=Path(tmp) / "s") as store:
        started = time.perf_counter()
        view = ann_index.rebuild(store, "space", vectors=(ids, ["00" * 32] * n, data))
        build = time.perf_counter() - started
        approx_ms, exact_ms, found = [], [], 0
        with store.snapshot() as snap:
            for q in queries:
                t = time.perf_counter()
                got = ann_index.search(snap, "bench", view, q, K, nprobe=probes)
                approx_ms.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                ann_index.search(snap, "bench", view, q, K, nprobe=view.nlist)
                exact_ms.append((time.perf_counter() - t) * 1000)
                truth = {f"v{i}" for i in ivf.top_k(data @ q, K)}
                found += len(truth & {c.vector_id for c in got})
    return {"set": name, "nlist": view.nlist, "nprobe": probes or view.nprobe,
            "recall": found / (K * len(queries)), "p50": statistics.median(approx_ms),
            "p95": np.percentile(approx_ms, 95), "exact_p50": statistics.median(exact_ms),
            "build": build}


def minilm_throughput() -> str | None:
    try:
        from repoctx.vectors import MiniLmEmbedder
        from repoctx.vectors.embedders.minilm import model_directory
        model_directory()
    except Exception:  # the extra is optional: no model, no line
        return None
    source = "".join(p.read_text() for p in sorted((ROOT / "repoctx").rglob("*.py")))
    texts = [c.text for c in windows(source * 2)][:32]
    short = [f"function repoctx.mod.f{i}\ndef f{i}(self, key) -> Any\nGet a value."
             for i in range(128)]
    embedder = MiniLmEmbedder()
    embedder.embed(["warm up"])
    rates = []
    for batch in (texts, short):
        started = time.perf_counter()
        embedder.embed(batch)
        rates.append(len(batch) / (time.perf_counter() - started))
    return (f"all-MiniLM-L6-v2 on this CPU: {rates[0]:.1f} file windows/s "
            f"(1,600 characters, truncated at 256 word pieces), {rates[1]:.0f} symbol texts/s.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    args = parser.parse_args()
    rng = np.random.default_rng(20261130)
    rows = [measure("clustered", clustered(args.n + QUERIES, rng), args.n),
            measure("unclustered", uniform(args.n + QUERIES, rng), args.n)]
    rows.append(measure("unclustered, probes fixed at 1/8", uniform(args.n + QUERIES, rng),
                        args.n, probes=max(1, rows[1]["nlist"] // 8)))
    lines = ["| set | partitions | probes | recall@10 | query p50 | query p95 | exact scan p50 "
             "| retrain |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r['set']} | {r['nlist']} | {r['nprobe']} | {r['recall']:.3f} "
                     f"| {r['p50']:.2f} ms | {r['p95']:.2f} ms | {r['exact_p50']:.2f} ms "
                     f"| {r['build']:.1f} s |")
    lines += ["", "Probes are calibrated at training for recall@10 >= 0.95 on queries drawn "
              "from the corpus; on unclustered data that takes most partitions, so the "
              "approximate query costs about as much as the exact scan."]
    model = minilm_throughput()
    if model:
        lines += ["", model]
    print("\n".join(lines))
    write_section(args.out, "vectors", f"Approximate vector index ({args.n:,} vectors, "
                  f"{DIM}-d; target recall@10 >= 0.95 clustered)", "\n".join(lines))


if __name__ == "__main__":
    main()
