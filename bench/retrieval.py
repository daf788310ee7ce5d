"""Retrieval quality on Django's source distribution: our search against two baselines.

Questions (``bench/retrieval_questions.json``) are phrased the way a developer asks an
agent; each names the gold file(s) that answer it. Every ranker returns a ranked list of
file paths (hits deduplicated to files, first occurrence kept, at most ``DEPTH``):

- **plain BM25**: one SQLite FTS5 row per exported text file (path unindexed, whole body),
  default ``unicode61`` tokenizer, ranked by ``bm25()``, query = OR of its word tokens;
- **ContextPull lexical**: ``export_directory`` of the corpus, then ``Reader.search``;
- **repocontext_search**: ours, when ``repoctx.retrieval`` exists (else the column is skipped).

Reported: recall@1/@5/@10 (a gold file within the top k) and MRR (1/rank of the first
gold file, 0 when absent) per ranker, per-area MRR, search latency p50/p95, and the
latency of ``context`` (budget 8192) when available.
Targets: repocontext_search beats both baselines on recall@5 and MRR;
search and context latency p50 < 20 ms, p95 < 100 ms.

    python bench/retrieval.py [--out docs/benchmarks.md] [--show-misses]
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _corpus, _report beside us

from _corpus import django_source  # noqa: E402
from _report import percentile, write_section  # noqa: E402

from repoctx.contextpull import Reader, export_directory  # noqa: E402

QUESTIONS = Path(__file__).resolve().parent / "retrieval_questions.json"
DEPTH = 50  # hits asked of every ranker
KS = (1, 5, 10)
CONTEXT_BUDGET = 8192
_WORD = re.compile(r"[^\W_]+")  # what unicode61 keeps as one token (it splits on '_')

Ranker = Callable[[str], list[str]]


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    gold: frozenset[str]
    area: str
    style: str  # "words" (the asker's own vocabulary) or "identifier" (names from the code)
    gold_symbol: str | None = None


@dataclass
class Outcome:
    """One ranker's result over the question set."""

    name: str
    ranks: dict[str, int | None] = field(default_factory=dict)  # question id -> first gold rank
    search_ms: list[float] = field(default_factory=list)
    build_s: float = 0.0

    def recall(self, k: int, ids: list[str] | None = None) -> float:
        picked = [self.ranks[i] for i in (ids if ids is not None else list(self.ranks))]
        return sum(1 for r in picked if r is not None and r <= k) / len(picked)

    def mrr(self, ids: list[str] | None = None) -> float:
        picked = [self.ranks[i] for i in (ids if ids is not None else list(self.ranks))]
        return sum(1 / r for r in picked if r is not None) / len(picked)


def load_questions(path: Path, root: Path) -> list[Question]:
    """The question set; fails loudly when a gold file is not in the corpus."""
    items = json.loads(path.read_text(encoding="utf-8"))
    questions = [Question(q["id"], q["question"], frozenset(q["gold"]), q["area"],
                          q.get("style", "words"), q.get("gold_symbol")) for q in items]
    missing = [(q.id, g) for q in questions for g in q.gold if not (root / g).is_file()]
    if missing:
        raise SystemExit(f"gold files missing from {root}: {missing}")
    return questions


def dedupe(paths: list[str]) -> list[str]:
    """Paths in first-occurrence order, repeats dropped."""
    return list(dict.fromkeys(paths))


def first_gold_rank(ranked: list[str], gold: frozenset[str]) -> int | None:
    return next((i for i, path in enumerate(ranked, 1) if path in gold), None)


# --- rankers ---------------------------------------------------------------------------------

def exported_paths(export: Path) -> list[str]:
    """The documents of the ContextPull export: both baselines search the same files."""
    conn = sqlite3.connect(f"file:{export}?mode=ro", uri=True)
    try:
        return [row[0] for row in conn.execute("SELECT path FROM documents ORDER BY path")]
    finally:
        conn.close()


def bm25_match(question: str) -> str | None:
    """The FTS5 query: every word token quoted, joined by OR (None when there are none)."""
    words = dict.fromkeys(w.lower() for w in _WORD.findall(question))
    return " OR ".join(f'"{w}"' for w in words) or None


def bm25_ranker(root: Path, paths: list[str], db: Path) -> Ranker:
    """Plain BM25 over whole files: one FTS5 row per file, default tokenizer."""
    conn = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    conn.execute("CREATE VIRTUAL TABLE files USING fts5(path UNINDEXED, body)")
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO files(path, body) VALUES (?, ?)", (
        (p, (root / p).read_bytes().decode("utf-8", errors="replace")) for p in paths))
    conn.execute("COMMIT")
    statement = "SELECT path FROM files WHERE files MATCH ? ORDER BY bm25(files) LIMIT ?"

    def search(question: str) -> list[str]:
        match = bm25_match(question)
        if match is None:
            return []
        return dedupe([row[0] for row in conn.execute(statement, (match, DEPTH))])

    return search


def contextpull_ranker(reader: Reader) -> Ranker:
    """ContextPull lexical search on the export: section hits reduced to their documents."""

    def search(question: str) -> list[str]:
        return dedupe([hit["doc"] for hit in reader.search(question, limit=DEPTH)["hits"]])

    return search


_WORKSPACES: dict[Path, object] = {}


def repoctx_workspace(root: Path, workdir: Path):  # noqa: ANN201 (a Workspace)
    """What a user's ``repoctx index`` builds: a store (reconcile pass) and its ContextPull
    export with the search tables inside; built once, shared by search and context."""
    if workdir not in _WORKSPACES:
        from repoctx import open_store
        from repoctx.contextpull import export_store
        from repoctx.reconcile import reconcile_pass
        from repoctx.retrieval import Workspace, export_extras

        store = open_store(root, repo_id="django", store_dir=workdir / "store")
        reconcile_pass(store, root)
        export = workdir / "repoctx-export.sqlite"
        export_store(store, root, export, finalize=export_extras(store))
        _WORKSPACES[workdir] = Workspace(store, root.resolve(), export)
    return _WORKSPACES[workdir]


def repocontext_ranker(root: Path, workdir: Path) -> Ranker | None:
    """``repocontext_search`` over the same corpus; hits are reduced to their files. The
    build time reported covers the reconcile, the export and the search tables."""
    from repoctx.retrieval.search import search

    ws = repoctx_workspace(root, workdir)

    def ranked(question: str) -> list[str]:
        return dedupe([hit["path"] for hit in search(ws, question, k=DEPTH)["hits"]
                       if hit.get("path")])

    return ranked


def context_call(root: Path, workdir: Path) -> Callable[[str], object] | None:
    """``repocontext_context(task, responseBudgetTokens=CONTEXT_BUDGET)`` on the same store."""
    from repoctx.retrieval import context

    ws = repoctx_workspace(root, workdir)
    return lambda task: context(ws, task, responseBudgetTokens=CONTEXT_BUDGET)


# --- evaluation ------------------------------------------------------------------------------

def evaluate(name: str, ranker: Ranker, questions: list[Question], build_s: float) -> Outcome:
    """Ranks and latencies of ``ranker``; one untimed warm-up pass first."""
    for q in questions:
        ranker(q.question)
    outcome = Outcome(name, build_s=build_s)
    for q in questions:
        start = time.perf_counter()
        ranked = ranker(q.question)
        outcome.search_ms.append((time.perf_counter() - start) * 1000)
        outcome.ranks[q.id] = first_gold_rank(ranked[:DEPTH], q.gold)
    return outcome


def latencies_ms(call: Callable[[str], object], questions: list[Question]) -> list[float]:
    samples = []
    for q in questions:
        start = time.perf_counter()
        call(q.question)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def timed_build(build: Callable[[], Ranker | None]) -> tuple[Ranker | None, float]:
    start = time.perf_counter()
    ranker = build()
    return ranker, time.perf_counter() - start


def hybrid(root: Path, workdir: Path, embedder: str) -> tuple[Ranker, dict]:
    """Embed the same store with ``embedder`` (the back-fill ``repoctx index --embedder``
    runs) and rank with ``repocontext_search``, which now fuses the semantic neighbours."""
    from repoctx import vectors

    ws = repoctx_workspace(root, workdir)
    chosen = vectors.choose(ws.store, embedder)
    start = time.perf_counter()
    filled = vectors.backfill(ws.store, chosen)
    seconds = time.perf_counter() - start
    return repocontext_ranker(root, workdir), {"backfill_s": seconds, **filled.as_json()}


def run(questions_path: Path, embedder: str | None = None) -> dict:
    root = django_source()
    questions = load_questions(questions_path, root)
    outcomes: list[Outcome] = []
    context_ms: list[float] | None = None
    with tempfile.TemporaryDirectory(prefix="bench-retrieval-") as tmp:
        workdir = Path(tmp)
        export = workdir / "contextpull.sqlite"
        start = time.perf_counter()
        report = export_directory(root, export)
        export_s = time.perf_counter() - start
        paths = exported_paths(export)
        bm25, bm25_s = timed_build(lambda: bm25_ranker(root, paths, workdir / "bm25.sqlite"))
        assert bm25 is not None
        outcomes.append(evaluate("plain BM25 (whole files)", bm25, questions, bm25_s))
        with Reader(export) as reader:
            outcomes.append(evaluate("ContextPull lexical", contextpull_ranker(reader),
                                     questions, export_s))
        ours, ours_s = timed_build(lambda: repocontext_ranker(root, workdir))
        if ours is not None:
            outcomes.append(evaluate("repocontext_search", ours, questions, ours_s))
        context = context_call(root, workdir)
        if context is not None:
            context_ms = latencies_ms(context, questions)
        embedded = None
        if embedder is not None:
            ranker, embedded = hybrid(root, workdir, embedder)
            outcomes.append(evaluate(f"repocontext_search, hybrid ({embedder})", ranker,
                                     questions, embedded["backfill_s"]))
    return {"root": root, "questions": questions, "outcomes": outcomes,
            "documents": report.documents, "context_ms": context_ms, "embedded": embedded}


# --- report ----------------------------------------------------------------------------------

def main_table(outcomes: list[Outcome]) -> list[str]:
    lines = ["| ranker | recall@1 | recall@5 | recall@10 | MRR | search p50 | search p95 "
             "| index build |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for o in outcomes:
        recalls = " | ".join(f"{o.recall(k):.1%}" for k in KS)
        lines.append(f"| {o.name} | {recalls} | {o.mrr():.3f} "
                     f"| {percentile(o.search_ms, 50):.1f} ms "
                     f"| {percentile(o.search_ms, 95):.1f} ms | {o.build_s:.1f} s |")
    return lines


def area_table(outcomes: list[Outcome], questions: list[Question]) -> list[str]:
    areas = sorted({q.area for q in questions})
    lines = ["| area | questions | " + " | ".join(f"MRR {o.name}" for o in outcomes) + " |",
             "| --- | ---: |" + " ---: |" * len(outcomes)]
    for area in areas:
        ids = [q.id for q in questions if q.area == area]
        cells = " | ".join(f"{o.mrr(ids):.2f}" for o in outcomes)
        lines.append(f"| {area} | {len(ids)} | {cells} |")
    return lines


def style_table(outcomes: list[Outcome], questions: list[Question]) -> list[str]:
    lines = ["| question style | questions | "
             + " | ".join(f"R@5 / MRR {o.name}" for o in outcomes) + " |",
             "| --- | ---: |" + " ---: |" * len(outcomes)]
    for style in sorted({q.style for q in questions}):
        ids = [q.id for q in questions if q.style == style]
        cells = " | ".join(f"{o.recall(5, ids):.0%} / {o.mrr(ids):.2f}" for o in outcomes)
        lines.append(f"| {style} | {len(ids)} | {cells} |")
    return lines


def verdict(outcomes: list[Outcome]) -> str:
    ours = next((o for o in outcomes if o.name == "repocontext_search"), None)
    if ours is None:
        return "Target (repocontext_search beats both baselines on recall@5 and MRR): " \
               "not measured yet, `repocontext_search` is not available."
    baselines = [o for o in outcomes if not o.name.startswith("repocontext_search")]
    met = all(ours.recall(5) > o.recall(5) and ours.mrr() > o.mrr() for o in baselines)
    line = ("Target (repocontext_search beats both baselines on recall@5 and MRR): "
            + ("met." if met else "**missed**."))
    for hybrid in (o for o in outcomes if o.name.startswith("repocontext_search, hybrid")):
        kept = hybrid.recall(5) >= ours.recall(5)
        line += (f" Hybrid ({hybrid.name}) not worse than keyword on recall@5: "
                 + ("met." if kept else "**missed**."))
    return line


def report_body(r: dict) -> str:
    questions: list[Question] = r["questions"]
    outcomes: list[Outcome] = r["outcomes"]
    lines = [f"{len(questions)} questions over Django's sdist (`{r['root'].name}`, "
             f"{r['documents']:,} text files); each ranker's top {DEPTH} hits reduced to "
             "files. Question set: `bench/retrieval_questions.json`.", "",
             *main_table(outcomes), "", verdict(outcomes), ""]
    if r["context_ms"] is not None:
        ms = r["context_ms"]
        lines += [f"`repocontext_context` (budget {CONTEXT_BUDGET}): p50 "
                  f"{percentile(ms, 50):.1f} ms, p95 {percentile(ms, 95):.1f} ms "
                  "(targets < 20 ms / < 100 ms).", ""]
    else:
        lines += ["`repocontext_context` latency: not measured yet (not available).", ""]
    lines += ["By question style (`words`: the asker's own vocabulary; `identifier`: names "
              "taken from the code or settings):", "", *style_table(outcomes, questions), "",
              "MRR per area:", "", *area_table(outcomes, questions)]
    return "\n".join(lines)


def show_misses(r: dict) -> None:
    """Per question, the first-gold rank of every ranker (— when not in the top DEPTH)."""
    outcomes: list[Outcome] = r["outcomes"]
    for q in r["questions"]:
        ranks = "  ".join(f"{o.ranks[q.id] or '—':>3}" for o in outcomes)
        print(f"{q.id} {ranks}  [{q.area}/{q.style}] {q.question}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    parser.add_argument("--show-misses", action="store_true",
                        help="print each question's first-gold rank per ranker")
    parser.add_argument("--embedder", choices=["minilm"], default=None,
                        help="also embed the store and report the hybrid ranking (section "
                             "retrieval-hybrid; needs the embed extra)")
    args = parser.parse_args()
    r = run(args.questions, args.embedder)
    if args.show_misses:
        show_misses(r)
    body = report_body(r)
    print(body)
    if args.embedder is None:
        write_section(args.out, "retrieval", "Retrieval quality on Django (recall@k, MRR; "
                      "target: repocontext_search beats both baselines on recall@5 and MRR)",
                      body)
        return
    e = r["embedded"]
    body += (f"\n\nBack-fill with {args.embedder}: {e['backfill_s']:.0f} s for the whole store: "
             f"{e['embedded']:,} sources embedded into {e['vectors']:,} vectors "
             f"({e['nil']:,} with nothing to embed), on 2 cores.")
    write_section(args.out, "retrieval-hybrid", "Hybrid retrieval on Django (target: hybrid "
                  "not worse than keyword on recall@5)", body)


if __name__ == "__main__":
    main()
