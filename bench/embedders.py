"""Embedder candidates on the same benches: quality, cost, speed.

For each candidate embedder (static tables distilled locally from the packaged
all-MiniLM-L6-v2 in several recipes; the transformer itself through numpy), on the
same stores:

- **Django questions** (``bench/retrieval_questions.json`` over the Django 5.2 sdist):
  ``repocontext_search`` keyword-only vs hybrid, recall@5 and MRR over files, and the
  hybrid query p50/p95 in process;
- **SWE-bench Django split** (``bench/swe.py``'s data; the whole problem statement is the
  query; ``--series`` picks release series): search file recall@5 and MRR, keyword vs
  hybrid;
- **embedding cost**: the back-fill's seconds for the whole Django store, and texts/s.

Each store is indexed once (keyword), scored with the embedder switched off, then
embedded by each candidate in turn (a switch retires the previous space) and scored
hybrid. The piece outputs the static recipes start from are distilled once and cached
in ``bench/.cache``. Cold ``repoctx index`` walls are ``bench/e2e.py``'s business; the
``--cold`` flag here times ``repoctx index --json`` on Django with ``--embedder none``
and with the default embedder in fresh stores.

    python bench/embedders.py [--series 3.0,3.1,3.2] [--candidates NAME,...] [--cold]
                              [--out docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench modules beside us

import retrieval as qbench  # noqa: E402
import swe  # noqa: E402
from _corpus import CACHE, django_source  # noqa: E402
from _report import load_average, write_section  # noqa: E402

from repoctx import vectors  # noqa: E402
from repoctx.tools.registry import call  # noqa: E402
from repoctx.vectors.embedders import settings
from repoctx.vectors.embedders.bert import Bert  # noqa: E402
from repoctx.vectors.embedders.minilm import model_directory  # noqa: E402
from repoctx.vectors.embedders.static import StaticEmbedder, piece_outputs, reduce  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RAW = CACHE / "static-piece-outputs.npy"
DEFAULT_SERIES = ("3.0", "3.1", "3.2")


def raw_outputs() -> np.ndarray:
    """Each vocabulary piece's mean-pooled MiniLM output, distilled once and cached."""
    if not RAW.is_file():
        RAW.parent.mkdir(parents=True, exist_ok=True)
        np.save(RAW, piece_outputs(Bert(model_directory())))
    return np.load(RAW)


def candidates() -> dict[str, Callable[[], Any]]:
    """Candidate name -> a builder of its embedder (the table recipes share one raw)."""
    def static(dim: int, sif: float | None, pca: bool, tag: str) -> Callable[[], Any]:
        return lambda: StaticEmbedder(table=reduce(raw_outputs(), dim, sif, pca),
                                      model=f"bench-static/{tag}")
    return {
        "static": lambda: settings.embedder_named("static"),  # the default: 256, PCA, SIF
        "static-256-pca-sif-1e-4": static(256, 1e-4, True, "256-pca-sif-1e-4"),
        "static-384-pca-sif": static(384, 1e-3, True, "384-pca-sif"),
        "static-256-pca": static(256, None, True, "256-pca"),
        "static-384-raw": static(384, None, False, "384-raw"),
        "minilm-numpy": lambda: settings.embedder_named("minilm"),
        "tokenlearn-64-int8": PackagedStatic,
        "static-code-windows": lambda: StaticEmbedder(
            table=settings.embedder_named("static")._load()[0],  # noqa: SLF001
            model="bench-static/code-windows"),
    }


def backfill_for(store: Any, name: str, embedder: Any) -> Any:
    """The candidate's back-fill (``*-code-windows``: code files keep their windows)."""
    from repoctx.vectors import sources

    sources.CODE_FILE_WINDOWS = name.endswith("-code-windows")
    try:
        return vectors.backfill(store, embedder)
    finally:
        sources.CODE_FILE_WINDOWS = False


class PackagedStatic:
    """``tokenlearn-static-model`` (a wheel of the index shipping a 64-d int8 Model2Vec
    table over a 10k vocabulary and a Rust encoder, 20 MB installed), seen through the
    seam under the name ``static`` (so search picks it up as the store's embedder)."""

    name = "static"
    model = "bench/tokenlearn-static-model-0.1.1/64-int8"
    dim = 64
    normalisation = "l2"

    def __init__(self) -> None:
        from static_model import get_embeddings  # pip install --no-deps tokenlearn-static-model

        self._embed = get_embeddings

    def embed(self, texts: list[str]) -> np.ndarray:
        """One float32 row per text."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.asarray(self._embed(list(texts)), dtype=np.float32).reshape(-1, self.dim)


@dataclass
class Run:
    """One ranker's ranks over one bench."""

    ranks: list[int | None] = field(default_factory=list)
    recall5: list[float] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, float]:
        """recall@5 (%), MRR, p50 and p95 in ms."""
        ms = sorted(self.ms)
        return {"recall5": 100 * statistics.fmean(self.recall5),
                "mrr": statistics.fmean(1 / r if r else 0.0 for r in self.ranks),
                "p50": ms[len(ms) // 2], "p95": ms[min(len(ms) - 1, int(len(ms) * 0.95))]}


def use(store: Any, embedder: Any | None) -> None:
    """Make ``embedder`` (None: keyword only) the store's embedder for search."""
    if embedder is None:
        settings.choose(store, "none")
        return
    if embedder.name == "static" and embedder is not settings.embedder_named("static"):
        settings._BUILT["static"] = embedder  # noqa: SLF001 (a bench variant under the name)
    settings.record_choice(store, embedder)


def score(ws: Any, queries: list[tuple[str, set[str]]], share: bool) -> Run:
    """File ranks of ``repocontext_search`` (k=50) for each ``(query, gold files)``;
    recall@5 is the share of gold files in the top 5 (``share``, SWE-bench's measure) or
    whether any is (the Django questions' measure, as ``bench/retrieval.py``)."""
    run = Run()
    for query, gold in queries:
        start = time.perf_counter()
        found, _, _ = swe.fitted(lambda q: call(ws, "repocontext_search",
                                                {"query": q, "k": 50}), query)
        run.ms.append((time.perf_counter() - start) * 1000)
        ranked = list(dict.fromkeys(h["path"] for h in found["hits"] if h.get("path")))
        run.ranks.append(next((i for i, p in enumerate(ranked, 1) if p in gold), None))
        hit = set(ranked[:5]) & gold
        run.recall5.append(len(hit) / len(gold) if share else float(bool(hit)))
    return run


def bench_store(ws: Any, queries: list[tuple[str, set[str]]], names: list[str],
                built: dict[str, Any], share: bool) -> dict[str, Any]:
    """Keyword, then each candidate hybrid, on one store."""
    use(ws.store, None)
    score(ws, queries[:5], share)  # warm the search state
    out: dict[str, Any] = {"keyword": score(ws, queries, share).summary()}
    for name in names:
        embedder = built[name]
        use(ws.store, embedder)
        start = time.perf_counter()
        filled = backfill_for(ws.store, name, embedder)
        seconds = time.perf_counter() - start
        score(ws, queries[:5], share)
        out[name] = {**score(ws, queries, share).summary(), "embed_s": seconds,
                     "vectors": filled.vectors, "error": filled.error}
        print(f"  {name}: {out[name]}", file=sys.stderr, flush=True)
    use(ws.store, None)
    return out


VARIANTS: dict[str, tuple[float, float, int]] = {
    # name: (semantic weight of a short query, of a long one (a pasted issue), RRF k)
    "keyword": (0.0, 0.0, 20),
    "default (0.3, long 0)": (0.3, 0.0, 20),
    "long 0.3 (main before the fix)": (0.3, 0.3, 20),
    "long 0.1": (0.3, 0.1, 20),
    "short 0.5": (0.5, 0.0, 20),
    "short 1.0": (1.0, 0.0, 20),
    "short 0.5, k 60": (0.5, 0.0, 60),
    "short 0.2": (0.2, 0.0, 20),
}


def dump_lists(ws: Any, embedder: Any, queries: list[tuple[str, set[str]]],
               ) -> list[dict[str, Any]]:
    """For each query: the keyword hits (k=50) and the semantic hits of the query search
    embeds (the reduced query of a pasted issue), and whether the text is long."""
    import importlib

    from repoctx.retrieval.search.state import search_state
    from repoctx.retrieval.search.task_text import index_stats, query_terms

    search_module = importlib.import_module("repoctx.retrieval.search.hits")  # the module, not
    use(ws.store, embedder)                                               # the function
    vectors.backfill(ws.store, embedder)
    use(ws.store, None)
    out = []
    for query, gold in queries:
        found, _, _ = swe.fitted(lambda q: call(ws, "repocontext_search",
                                                {"query": q, "k": 50}), query)
        terms = query_terms(query, "query", lambda: index_stats(search_state(ws.export)))
        near, _ = vectors.semantic_hits(ws, terms.text, 50, embedder=embedder)
        out.append({"gold": sorted(gold), "long": search_module._is_long(query),  # noqa: SLF001
                    "keyword": [(h["key"], h.get("path"), h["reasons"]) for h in found["hits"]],
                    "semantic": [(h["key"], h.get("path")) for h in near]})
    return out


def replay(dumps: list[dict[str, Any]], short: float, long: float, k: int,
           share: bool) -> dict[str, float]:
    """recall@5 and MRR over files of ``fusion.guarded`` with these weights."""
    from repoctx.retrieval.search.fusion import guarded
    from repoctx.retrieval.search.hits import STRONG_REASONS

    run = Run()
    for d in dumps:
        paths = {key: path for key, path, _ in d["keyword"]}
        paths.update({key: path for key, path in d["semantic"] if key not in paths})
        pinned = 0
        for _, _, reasons in d["keyword"]:
            if not any(r.startswith(STRONG_REASONS) for r in reasons):
                break
            pinned += 1
        weight = long if d["long"] else short
        order = guarded([key for key, _, _ in d["keyword"]], [key for key, _ in d["semantic"]],
                        pinned=pinned, weight=weight, k=k)[:50]
        ranked = list(dict.fromkeys(paths[key] for key in order if paths.get(key)))
        gold = set(d["gold"])
        run.ranks.append(next((i for i, p in enumerate(ranked, 1) if p in gold), None))
        hit = set(ranked[:5]) & gold
        run.recall5.append(len(hit) / len(gold) if share else float(bool(hit)))
        run.ms.append(0.0)
    return run.summary()


def sweep(embedder: Any, series: list[str], workdir: Path) -> str:
    """The fusion variants replayed on dumps of both lists, Django questions and SWE."""
    root = django_source()
    questions = qbench.load_questions(qbench.QUESTIONS, root)
    ws = qbench.repoctx_workspace(root, workdir)
    benches = {"Django questions": (dump_lists(
        ws, embedder, [(q.question, set(q.gold)) for q in questions]), False)}
    swe_dumps: list[dict[str, Any]] = []
    for one in series:
        sw = private_workspace(one, workdir)
        try:
            swe_dumps += dump_lists(sw, embedder, [(i.task, set(i.gold))
                                                   for i in swe.load_instances(one, None)])
        finally:
            sw.close()
            sw.store.close()
    if swe_dumps:
        benches["SWE search"] = (swe_dumps, True)
    (Path(tempfile.gettempdir()) / "embedders-sweep-dumps.json").write_text(json.dumps(
        {name: d for name, (d, _) in benches.items()}))
    lines = ["| fusion variant | " + " | ".join(f"{b} recall@5 / MRR" for b in benches) + " |",
             "| --- |" + " ---: |" * len(benches)]
    for name, (short, long, k) in VARIANTS.items():
        cells = []
        for dumps, share in benches.values():
            r = replay(dumps, short, long, k, share)
            cells.append(f"{r['recall5']:.1f}% / {r['mrr']:.3f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def django_questions(names: list[str], built: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """The Django questions bench, keyword and each candidate."""
    root = django_source()
    questions = qbench.load_questions(qbench.QUESTIONS, root)
    ws = qbench.repoctx_workspace(root, workdir)
    return bench_store(ws, [(q.question, set(q.gold)) for q in questions], names, built,
                       share=False)


def private_workspace(series: str, workdir: Path) -> Any:
    """``swe.workspace(series)`` copied into ``workdir``: this bench switches the store's
    embedder, which must not leak into other runs sharing ``bench/.cache``."""
    from repoctx import open_store
    from repoctx.retrieval import Workspace

    ws, root = swe.workspace(series, False, lambda m: print(m, file=sys.stderr))
    ws.close()
    ws.store.close()
    folder = swe.STORES / f"{series}-{swe.index_key()}"
    copy = workdir / f"swe-{series}"
    shutil.copytree(folder, copy)
    store = open_store(root, repo_id=f"django-{series}", store_dir=copy / "store")
    return Workspace(store, root, copy / "export.sqlite")


def swe_split(series: list[str], names: list[str], built: dict[str, Any],
              workdir: Path) -> dict[str, Any]:
    """The SWE-bench split's search, per series then pooled (means weighted by tasks)."""
    per: dict[str, tuple[int, dict[str, Any]]] = {}
    for one in series:
        instances = swe.load_instances(one, None)
        ws = private_workspace(one, workdir)
        try:
            per[one] = (len(instances), bench_store(
                ws, [(i.task, set(i.gold)) for i in instances], names, built, share=True))
        finally:
            ws.close()
            ws.store.close()
    total = sum(n for n, _ in per.values())
    pooled: dict[str, Any] = {}
    for ranker in ["keyword", *names]:
        pooled[ranker] = {key: sum(n * r[ranker][key] for n, r in per.values()) / total
                          for key in ("recall5", "mrr", "p50", "p95")}
    return {"tasks": total, "pooled": pooled}


def cold_index(embedder: str) -> dict[str, float]:
    """``repoctx index --json`` of Django 5.2 into a fresh store: its phases' seconds,
    with ``cpu`` (user + system seconds of the process tree) and ``load`` (the 1-minute
    load average when it started)."""
    root = django_source()
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory(prefix="embedder-cold-") as tmp:
        cmd = [sys.executable, "-m", "repoctx", "index", str(root), "--store",
               str(Path(tmp) / "s"), "--embedder", embedder, "--json"]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {**json.loads(out.stdout)["seconds"], "cpu": cpu, "load": load}


def cold_pairs(pairs: int, embedder: str = "static") -> list[dict[str, dict[str, float]]]:
    """``pairs`` cold indexes with ``--embedder none`` and ``embedder``, alternating (which
    goes first alternates too), so both see the same minutes of a shared machine."""
    runs = []
    for i in range(pairs):
        order = ("none", embedder) if i % 2 == 0 else (embedder, "none")
        pair = {e: cold_index(e) for e in order}
        print(f"  cold pair {i + 1}: {pair}", file=sys.stderr, flush=True)
        runs.append(pair)
    return runs


def report(q: dict[str, Any] | None, s: dict[str, Any] | None,
           cold: list[dict[str, dict[str, float]]] | None, names: list[str]) -> str:
    """The candidate table and the cold-index line."""
    lines = ["| candidate | Django questions recall@5 / MRR | SWE search recall@5 / MRR "
             "| hybrid query p50 / p95 (Django) | embed the Django store |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for name in ["keyword", *names] if q or s else []:
        a = q[name] if q else None
        b = s["pooled"][name] if s else None
        swe_cell = f"{b['recall5']:.1f}% / {b['mrr']:.3f}" if b else "—"
        q_cell = f"{a['recall5']:.1f}% / {a['mrr']:.3f}" if a else "—"
        ms = f"{a['p50']:.1f} / {a['p95']:.1f} ms" if a else "—"
        embed = (f"{a['embed_s']:.1f} s ({a['vectors']:,} vectors)"
                 if a and "embed_s" in a else "—")
        lines.append(f"| {name} | {q_cell} | {swe_cell} | {ms} | {embed} |")
    if s:
        lines += ["", f"SWE-bench: {s['tasks']} tasks of the series asked, the whole problem "
                  "statement as the query, recall@5 = share of gold files in the top 5 files."]
    if cold:
        lines += ["", "Cold `repoctx index` of Django 5.2, fresh stores, pairs alternating "
                  "(wall / CPU of the process tree; load = 1-minute load average at start):",
                  "", "| pair | load | keyword wall / CPU | embedder wall / CPU | ratio wall "
                  "| ratio CPU |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
        for i, pair in enumerate(cold, 1):
            none, other = pair["none"], next(v for k, v in pair.items() if k != "none")
            lines.append(f"| {i} | {none['load']:.1f} / {other['load']:.1f} "
                         f"| {none['wall']:.1f} s / {none['cpu']:.1f} s "
                         f"| {other['wall']:.1f} s / {other['cpu']:.1f} s "
                         f"| {other['wall'] / none['wall']:.2f}x "
                         f"| {other['cpu'] / none['cpu']:.2f}x |")
    lines += ["", f"Load average during the run: {load_average()} (2 cores, shared)."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", default=",".join(DEFAULT_SERIES),
                        help="SWE-bench series, comma-separated ('' for none)")
    parser.add_argument("--candidates", default="static",
                        help=f"comma-separated, of: {', '.join(candidates())}")
    parser.add_argument("--cold", type=int, default=0, metavar="PAIRS",
                        help="also time PAIRS cold repoctx index pairs (none vs static)")
    parser.add_argument("--skip-questions", action="store_true",
                        help="leave out the Django questions (with --cold or --series)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--sweep", action="store_true",
                        help="replay fusion variants on dumps (first candidate) instead")
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    args = parser.parse_args()
    names = [n for n in args.candidates.split(",") if n]
    built = {name: candidates()[name]() for name in names}
    series = [v for v in args.series.split(",") if v]
    if args.sweep:
        with tempfile.TemporaryDirectory(prefix="embedder-sweep-") as tmp:
            print(sweep(built[names[0]], series, Path(tmp) / "w"))
        return
    with tempfile.TemporaryDirectory(prefix="embedder-bench-") as tmp:
        q = None if args.skip_questions else django_questions(names, built, Path(tmp))
        s = swe_split(series, names, built, Path(tmp)) if series else None
    cold = cold_pairs(args.cold) if args.cold else None
    body = report(q, s, cold, names)
    if args.json:
        args.json.write_text(json.dumps({"questions": q, "swe": s, "cold": cold,
                                         "load": load_average()}, indent=1))
    print(body)
    if not args.no_write:
        write_section(args.out, "embedders", "Embedders for hybrid search", body)


if __name__ == "__main__":
    main()
