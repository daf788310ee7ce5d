"""Retrieval on real agent tasks: SWE-bench's Django, sympy and sphinx splits.

Each instance (``_swe_splits``) is a pasted issue (``problem_statement``) with the files
(``gold_files``) and definitions (``gold_spans``) its reference fix edits, asked against
its tree: for Django the sdist of its release series, for sympy and sphinx its exact base
commit (extracted from a git mirror named by ``SWE_MIRROR_SYMPY`` / ``SWE_MIRROR_SPHINX``).
Each tree is indexed once, as ``repoctx index --embedder none`` does (``--embedder
static``: as ``repoctx index --embedder static`` does, vectors back-filled, search hybrid):
the store and its export are cached under ``bench/.cache/swe/<split>-<tree>-<key>[-static]/``,
where ``key`` hashes the repoctx modules that run while an index is built (``_index_key``:
a change to them re-indexes, a change to search or bundle code does not; ``--reindex``
forces it). For every instance, with the whole problem statement as the task:

- ``repocontext_context`` at 13k / 27k / 50k tokens: per instance, file recall = share
  of gold files whose text (a slice or the whole file) is in the bundle; reported as
  Avg, All (recall 1) and Any (recall > 0), as SWE-bench's retrieval evaluation does.
  Gold files named only by a bare path (or an outline) are counted separately.
- definition-level recall: a ``gold_span`` (``SQLCompiler.get_order_by``) is mapped to
  its line span in the tree's file with repoctx's own extractor; it counts when the
  bundle's text for that file covers all of the span's lines. ``imports`` counts when
  the text covers every top-level import line of the file, ``impl:N`` when it covers
  line N (module-level code); names the extractor does not find in the tree (a Django
  sdist is a later release) are left out and counted.
- edited lines delivered (``edited_lines``): per gold file, whether every line the fix
  changes lies inside delivered text; the lines are the patch's (sympy, sphinx) or, with
  no patch (Django), those of each edited definition located by name. *edits* is the
  same per instance (every gold file's edits delivered).
- tokens before the first gold text (13k): cl100k tokens of the bundle's entries, in
  bundle order, before the first entry carrying text of a gold file; and the share of
  tasks whose bundle's first entry is a gold file.
- ``repocontext_search`` (k=50, hits reduced to files): file recall@1/5/10.
- latency of context (13k) and search, p50 / p95, in process.
- a whole-file BM25 baseline in the same run: an in-memory SQLite FTS5 table with one
  row per ``.py`` file of the tree (default ``unicode61`` tokenizer), ranked by
  ``bm25()`` for the OR of the task's distinct words; its file recall@1/5/10, and its
  best packing (whole files in rank order, each added when its cl100k count still fits
  the budget) scored as the bundle is, a delivered unit being a whole file.

When a tool refuses the whole task (a tool with input limits), the task is cut to the
longest prefix it takes, and the run says how many were cut.

    python bench/swe.py [--split django|sympy|sphinx|all] [--limit N] [--series 3.0]
                        [--embedder none|static] [--json out.json] [--reindex]
                        [--out docs/benchmarks.md]
                        [--no-write] [--show-misses]

``--limit`` applies to each split. The figures include each tree's index cost (the wall of
a build, read back from the cache, and the store + export's disk). Whole keyword runs write
docs/benchmarks.md: the Django split's own section, and (all three splits) the side-by-side
section; ``--json`` writes every split's figures keyed by split.
"""

from __future__ import annotations

import argparse
import ast
import fcntl
import json
import re
import shutil
import sqlite3
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _corpus, _report beside us

from _corpus import CACHE  # noqa: E402
from _index_key import index_key  # noqa: E402
from _report import percentile, write_section  # noqa: E402
from _swe_report import report, side_by_side  # noqa: E402
from _swe_splits import (  # noqa: E402
    SPLITS,
    Instance,
    load_instances,
    mirror,
    patch_lines,
    tree_root,
)

from repoctx.errors import ToolError  # noqa: E402
from repoctx.extract import extract, module_name  # noqa: E402
from repoctx.tokenizer import count_tokens  # noqa: E402

BUDGETS = (13_000, 27_000, 50_000)
KS = (1, 5, 10)
SEARCH_K = 50
BM25_DEPTH = 200
STORES = CACHE / "swe"
_WORD = re.compile(r"[^\W_]+")


# --- index, cached ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Built:
    """One tree's index: its workspace, the tree, and what building it cost."""

    ws: Any
    root: Path
    seconds: float
    disk_bytes: int


def workspace(split: str, tree: str, reindex: bool, log: Callable[[str], None],
              embedder: str = "none") -> Built:
    """The tree (a Django series' sdist, a base commit) indexed as ``repoctx index
    --embedder EMBEDDER`` does (store, vectors, export), cached by tree, embedder and
    ``index_key()``."""
    from repoctx import open_store, vectors
    from repoctx.contextpull import export_store
    from repoctx.reconcile import reconcile_pass
    from repoctx.retrieval import Workspace, export_extras

    root = tree_root(split, tree)
    folder = STORES / f"{split}-{tree}-{index_key()}{'' if embedder == 'none' else '-' + embedder}"
    repo_id = f"{split}-{tree}"
    done = folder / ".indexed"
    STORES.mkdir(parents=True, exist_ok=True)
    # Worktrees may share one cache: a lock per index keeps two runs from building (and
    # deleting) the same folder at once; the second waits and then reuses the first's.
    with open(folder.with_name(folder.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if reindex and folder.exists():
            shutil.rmtree(folder)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            start = time.perf_counter()
            store = open_store(root, repo_id=repo_id, store_dir=folder / "store")
            chosen = vectors.choose(store, embedder)  # recorded, whatever is installed
            reconcile_pass(store, root)
            vectors.backfill(store, chosen)  # nothing for ``none``
            export_store(store, root, folder / "export.sqlite", finalize=export_extras(store))
            done.write_text(f"{time.perf_counter() - start:.1f}\n")
            log(f"indexed {split} {tree} in {time.perf_counter() - start:.0f} s -> {folder}")
        else:
            store = open_store(root, repo_id=repo_id, store_dir=folder / "store")
    disk = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    return Built(Workspace(store, root, folder / "export.sqlite"), root,
                 float(done.read_text()), disk)


# --- whole-file BM25 -------------------------------------------------------------------------

class WholeFileBM25:
    """One FTS5 row per ``.py`` file of the tree, ranked by ``bm25()``; token counts cached."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE files USING fts5(path UNINDEXED, body)")
        self.conn.executemany("INSERT INTO files(path, body) VALUES (?, ?)", (
            (p.relative_to(root).as_posix(), p.read_bytes().decode("utf-8", "replace"))
            for p in sorted(root.rglob("*.py"))))
        self._tokens: dict[str, int] = {}

    def rank(self, task: str) -> list[str]:
        """Paths best first for the OR of the task's distinct words."""
        words = dict.fromkeys(w.lower() for w in _WORD.findall(task))
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        sql = "SELECT path FROM files WHERE files MATCH ? ORDER BY bm25(files) LIMIT ?"
        return [row[0] for row in self.conn.execute(sql, (match, BM25_DEPTH))]

    def tokens(self, path: str) -> int:
        """cl100k tokens of the whole file."""
        if path not in self._tokens:
            text = (self.root / path).read_bytes().decode("utf-8", "replace")
            self._tokens[path] = count_tokens(text)
        return self._tokens[path]

    def packed(self, ranked: list[str], budget: int) -> set[str]:
        """Whole files in rank order, each taken when it still fits ``budget``."""
        room, taken = budget, set()
        for path in ranked:
            cost = self.tokens(path)
            if cost <= room:
                taken.add(path)
                room -= cost
        return taken


# --- definitions of gold spans ---------------------------------------------------------------

class Definitions:
    """Line spans of ``gold_spans`` names in the sdist's files, by repoctx's extractor."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: dict[str, tuple[dict[str, list[tuple[int, int]]], list[int], int]] = {}

    def _file(self, path: str) -> tuple[dict[str, list[tuple[int, int]]], list[int], int]:
        if path not in self._files:
            text = self._text(path)
            prefix = module_name(path) + "."
            spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
            for sym in extract(path, text):
                name = sym.fq_name.removeprefix(prefix)
                spans[name].append((sym.start_line, sym.end_line))
            self._files[path] = (dict(spans), _import_lines(text), len(text.splitlines()))
        return self._files[path]

    def _text(self, path: str) -> str:
        return (self.root / path).read_bytes().decode("utf-8", "replace")

    def text_lines(self, path: str) -> list[str] | None:
        """The file's lines as the tree holds them (None when it has no such file)."""
        try:
            return self._text(path).splitlines()
        except OSError:
            return None

    def every_line(self, path: str) -> set[int]:
        """All lines of the file (what a whole-file unit delivers)."""
        return set(range(1, self._file(path)[2] + 1))

    def lines(self, path: str, span: str) -> list[set[int]] | None:
        """The line sets any of which holds ``span`` (None when not found in the sdist)."""
        spans, imports, total = self._file(path)
        if span == "imports":
            return [set(imports)] if imports else None
        if span.startswith("impl:"):
            line = int(span.split(":", 1)[1])
            return [{line}] if 1 <= line <= total else None
        found = spans.get(span)
        return [set(range(a, b + 1)) for a, b in found] if found else None


def _import_lines(text: str) -> list[int]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    return sorted({line for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)
                   for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)})


# --- one bundle ------------------------------------------------------------------------------

def covered_lines(bundle: dict[str, Any]) -> dict[str, set[int]]:
    """Per path, the lines whose text the bundle carries (slices or whole files)."""
    out: dict[str, set[int]] = defaultdict(set)
    for entry in bundle.get("entries", []):
        for start, end in sent_spans(entry):
            out[entry["path"]].update(range(start, end + 1))
    return out


def sent_spans(entry: dict[str, Any]) -> list[list[int]]:
    """The ``[first, last]`` line spans whose text a bundle entry carries."""
    return [unit["lines"] for unit in entry.get("units", [entry])
            if "text" in unit and isinstance(unit.get("lines"), list)]


def tokens_before_gold(bundle: dict[str, Any], gold: set[str]) -> int | None:
    """cl100k tokens of the entries before the first one carrying a gold file's text."""
    total = 0
    for entry in bundle.get("entries", []):
        has_text = any("text" in u for u in entry.get("units", [entry]))
        if entry.get("path") in gold and has_text:
            return total
        total += count_tokens(json.dumps(entry, ensure_ascii=False))
    return None


# --- calls -----------------------------------------------------------------------------------

def fitted(ask: Callable[[str], dict[str, Any]],
           task: str) -> tuple[dict[str, Any], bool, float]:
    """``ask(task)``, or, when the tool refuses it, ``ask`` of the longest prefix of whole
    words it takes (found by bisection); True when the task was cut; the milliseconds of
    the answered call (the refused tries are not timed)."""
    try:
        start = time.perf_counter()
        return ask(task), False, (time.perf_counter() - start) * 1000
    except ToolError:
        pass
    spans = [m.end() for m in re.finditer(r"\S+", task)]
    low, high, best = 1, len(spans) - 1, 0
    while low <= high:
        mid = (low + high) // 2
        try:
            ask(task[: spans[mid - 1]])
            best, low = mid, mid + 1
        except ToolError:
            high = mid - 1
    if not best:
        raise SystemExit(f"the tool refuses even the first word of: {task[:80]!r}")
    start = time.perf_counter()
    answer = ask(task[: spans[best - 1]])
    return answer, True, (time.perf_counter() - start) * 1000


@dataclass
class Scores:
    """Everything measured over the run, per instance."""

    n: int = 0
    gold_files: int = 0
    ctx: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    path_only: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    defs: dict[int, list[bool]] = field(default_factory=lambda: defaultdict(list))
    defs_missing: int = 0
    before_gold: list[int | None] = field(default_factory=list)
    search: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    bm25: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    bm25_pack: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    edits: dict[int, list[bool]] = field(default_factory=lambda: defaultdict(list))
    bm25_edits: dict[int, list[bool]] = field(default_factory=lambda: defaultdict(list))
    edit_files: dict[int, list[bool]] = field(default_factory=lambda: defaultdict(list))
    bm25_edit_files: dict[int, list[bool]] = field(default_factory=lambda: defaultdict(list))
    edits_unlocated: int = 0
    first_gold: list[bool] = field(default_factory=list)
    context_ms: list[float] = field(default_factory=list)
    search_ms: list[float] = field(default_factory=list)
    bm25_ms: list[float] = field(default_factory=list)
    cut_search: int = 0
    cut_context: int = 0
    index_s: dict[str, float] = field(default_factory=dict)
    built_s: list[float] = field(default_factory=list)
    disk_bytes: list[int] = field(default_factory=list)
    misses: list[dict[str, Any]] = field(default_factory=list)


def _recall(found: set[str], gold: set[str]) -> float:
    return len(found & gold) / len(gold)


Edits = dict[str, list[list[set[int]]]]
"""Per gold file, the pieces its fix edits, each as the line sets any one of which holds it
(a definition's name may match more than one definition)."""


def edited_lines(inst: Instance, defs: Definitions) -> Edits | None:
    """What the fix edits in each gold file, as lines of the indexed tree: with a patch
    against that tree, one piece per file, the lines it changes (``patch_lines``); without
    one, each edited definition, located by name; None when one of them is not found, or a
    gold file has no changed line in the tree (the instance is left out).

    The Django split's sdists are later releases than the fix's base commit, so a patch's
    line numbers would not address them; the edited definitions, located by name, do."""
    if inst.patch:
        changed = patch_lines(inst.patch, defs.text_lines)
        lines = {path: changed.get(path, set()) & defs.every_line(path) for path in inst.gold}
        return {path: [[found]] for path, found in lines.items()} if all(lines.values()) else None
    out: Edits = {}
    for path in inst.gold:
        names = inst.spans.get(path) or []
        if not names:
            return None
        located = [defs.lines(path, name) for name in names]
        if any(options is None for options in located):
            return None
        out[path] = located  # type: ignore[assignment]
    return out


def edits_inside(edits: Edits, delivered: Callable[[str], set[int]]) -> dict[str, bool]:
    """Per gold file: every piece its fix edits lies inside what ``delivered(path)``
    covers."""
    return {path: all(any(option <= delivered(path) for option in options)
                      for options in pieces)
            for path, pieces in edits.items()}


def _add_edits(edits: Edits | None, delivered: Callable[[str], set[int]],
               instances: list[bool], files: list[bool]) -> None:
    """Append the instance's verdict (all gold files) and each gold file's."""
    if edits is None:
        return
    per_file = edits_inside(edits, delivered)
    instances.append(all(per_file.values()))
    files.extend(per_file.values())


def score_instance(ws: Any, inst: Instance, defs: Definitions, bm25: WholeFileBM25,
                   s: Scores) -> None:
    """Run the tools and the baseline on one instance; add its figures to ``s``."""
    from repoctx.tools.registry import call

    gold = set(inst.gold)
    s.n += 1
    s.gold_files += len(gold)
    found, cut, ms = fitted(
        lambda q: call(ws, "repocontext_search", {"query": q, "k": SEARCH_K}), inst.task)
    s.search_ms.append(ms)
    s.cut_search += cut
    ranked = list(dict.fromkeys(h["path"] for h in found["hits"] if h.get("path")))
    for k in KS:
        s.search[k].append(_recall(set(ranked[:k]), gold))
    edits = edited_lines(inst, defs)
    s.edits_unlocated += edits is None
    miss: dict[str, Any] = {"id": inst.id, "gold": sorted(gold),
                            "search": ranked[:10], "search_rank": _first(ranked, gold)}
    for budget in BUDGETS:
        bundle, cut, ms = fitted(lambda t, b=budget: call(  # type: ignore[misc]
            ws, "repocontext_context", {"task": t, "responseBudgetTokens": b}), inst.task)
        if budget == BUDGETS[0]:
            s.context_ms.append(ms)
            s.cut_context += cut
            s.before_gold.append(tokens_before_gold(bundle, gold))
            s.first_gold.append(_first_is_gold(bundle, gold))
            miss["bundle"] = [e["path"] for e in bundle.get("entries", [])]
            miss["gold_lines"] = _gold_lines(bundle, edits, gold)
        lines = covered_lines(bundle)
        named = {e["path"] for e in bundle.get("entries", [])}
        s.ctx[budget].append(_recall(set(lines), gold))
        s.path_only[budget] += len(gold & (named - set(lines)))
        _add_edits(edits, lambda p, c=lines: c.get(p, set()), s.edits[budget],
                   s.edit_files[budget])
        for path, names in inst.spans.items():
            for name in names:
                options = defs.lines(path, name)
                if options is None:
                    s.defs_missing += budget == BUDGETS[0]
                    continue
                s.defs[budget].append(any(o <= lines.get(path, set()) for o in options))
    start = time.perf_counter()
    base = bm25.rank(inst.task)
    s.bm25_ms.append((time.perf_counter() - start) * 1000)
    for k in KS:
        s.bm25[k].append(_recall(set(base[:k]), gold))
    for budget in BUDGETS:
        packed = bm25.packed(base, budget)
        s.bm25_pack[budget].append(_recall(packed, gold))
        _add_edits(edits, lambda p, taken=packed: defs.every_line(p) if p in taken else set(),
                   s.bm25_edits[budget], s.bm25_edit_files[budget])
    miss["bm25_rank"] = _first(base, gold)
    miss["ctx"] = {budget: s.ctx[budget][-1] for budget in BUDGETS}
    s.misses.append(miss)


def _gold_lines(bundle: dict[str, Any], edits: Edits | None,
                gold: set[str]) -> dict[str, dict[str, Any]]:
    """Per gold file, for ``--show-misses``: the line range the fix edits (first, last,
    count of its first option) and the line spans the bundle sends of it."""
    out: dict[str, dict[str, Any]] = {}
    for entry in bundle.get("entries", []):
        if entry.get("path") in gold:
            out[entry["path"]] = {"sent": sent_spans(entry)}
    for path, pieces in (edits or {}).items():
        lines = sorted(set().union(*(options[0] for options in pieces)))
        out.setdefault(path, {"sent": []})["edited"] = [lines[0], lines[-1], len(lines)]
    return out


def _first_is_gold(bundle: dict[str, Any], gold: set[str]) -> bool:
    entries = bundle.get("entries", [])
    return bool(entries) and entries[0].get("path") in gold


def _first(ranked: list[str], gold: set[str]) -> int | None:
    return next((i for i, p in enumerate(ranked, 1) if p in gold), None)


def _tree_order(tree: str) -> tuple[int, ...]:
    """Django series in version order; commits in the split's (instance) order."""
    return tuple(int(p) for p in tree.split(".")) if re.fullmatch(r"[\d.]+", tree) else ()


def run(instances: list[Instance], reindex: bool, embedder: str = "none") -> Scores:
    """Score one split's instances, one tree (series or commit) at a time."""
    s = Scores()
    by_tree: dict[str, list[Instance]] = defaultdict(list)
    for inst in instances:
        by_tree[inst.tree].append(inst)
    for tree in sorted(by_tree, key=_tree_order):
        split = by_tree[tree][0].split
        start = time.perf_counter()
        built = workspace(split, tree, reindex, _log, embedder)
        ws, root = built.ws, built.root
        s.index_s[tree] = time.perf_counter() - start
        s.built_s.append(built.seconds)
        s.disk_bytes.append(built.disk_bytes)
        defs, bm25 = Definitions(root), WholeFileBM25(root)
        try:
            for inst in by_tree[tree]:
                score_instance(ws, inst, defs, bm25, s)
        finally:
            ws.close()
            ws.store.close()
        _log(f"{split} {tree}: {len(by_tree[tree])} instances")
    return s


def _log(message: str) -> None:
    print(f"[swe] {message}", file=sys.stderr, flush=True)


# --- report ----------------------------------------------------------------------------------

def pct(values: list[float] | list[bool]) -> float:
    """Mean as a percentage (0 for no values)."""
    return 100 * sum(values) / len(values) if values else 0.0


def summary(s: Scores) -> dict[str, Any]:
    """The figures as one JSON-ready dict."""
    known = [t for t in s.before_gold if t is not None]
    out: dict[str, Any] = {
        "instances": s.n, "gold_files": s.gold_files,
        "context": {str(b): {"avg": pct(s.ctx[b]), "all": pct([r == 1 for r in s.ctx[b]]),
                             "any": pct([r > 0 for r in s.ctx[b]]),
                             "gold_files_path_only": s.path_only[b],
                             "definitions": pct(s.defs[b])} for b in BUDGETS},
        "definitions_counted": len(s.defs[BUDGETS[0]]),
        "definitions_not_in_sdist": s.defs_missing,
        "tokens_before_first_gold_13k": {
            "median": statistics.median(known) if known else None,
            "no_gold_text": len(s.before_gold) - len(known)},
        "search": {f"recall@{k}": pct(s.search[k]) for k in KS},
        "bm25": {**{f"recall@{k}": pct(s.bm25[k]) for k in KS},
                 **{f"all@{b}": pct([r == 1 for r in s.bm25_pack[b]]) for b in BUDGETS},
                 **{f"avg@{b}": pct(s.bm25_pack[b]) for b in BUDGETS},
                 **{f"any@{b}": pct([r > 0 for r in s.bm25_pack[b]]) for b in BUDGETS},
                 **{f"edits@{b}": pct(s.bm25_edits[b]) for b in BUDGETS},
                 "latency_p95_ms": percentile(s.bm25_ms, 95)},
        "edits": {str(b): pct(s.edits[b]) for b in BUDGETS},
        "edits_counted": len(s.edits[BUDGETS[0]]),
        "edited_lines": {str(b): pct(s.edit_files[b]) for b in BUDGETS},
        "edited_lines_bm25": {str(b): pct(s.bm25_edit_files[b]) for b in BUDGETS},
        "edited_lines_files": len(s.edit_files[BUDGETS[0]]),
        "first_entry_gold_13k": pct(s.first_gold),
        "edits_unlocated": s.edits_unlocated,
        "latency_ms": {"context13k_p50": percentile(s.context_ms, 50),
                       "context13k_p95": percentile(s.context_ms, 95),
                       "search_p50": percentile(s.search_ms, 50),
                       "search_p95": percentile(s.search_ms, 95),
                       "bm25_p50": percentile(s.bm25_ms, 50)},
        "cut_to_fit": {"search": s.cut_search, "context": s.cut_context},
        "index_s": s.index_s,
        "index_cost": {"trees": len(s.built_s),
                       "build_s_median": statistics.median(s.built_s) if s.built_s else None,
                       "disk_mb_median": (statistics.median(s.disk_bytes) / 2**20
                                          if s.disk_bytes else None)},
    }
    return out


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="all")
    parser.add_argument("--limit", type=int, default=None,
                        help="first N instances of each split only")
    parser.add_argument("--series", default=None, help="one Django release series, e.g. 3.0")
    parser.add_argument("--json", type=Path, default=None,
                        help="write the figures here, per split")
    parser.add_argument("--reindex", action="store_true", help="ignore the cached indexes")
    parser.add_argument("--embedder", choices=("none", "static"), default="none",
                        help="index with this embedder (static: search is hybrid)")
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    parser.add_argument("--no-write", action="store_true", help="leave docs/ untouched")
    parser.add_argument("--show-misses", action="store_true",
                        help="per instance: gold, search rank, bundle files")
    return parser.parse_args()


def main() -> None:
    args = _arguments()
    splits = SPLITS if args.split == "all" else (args.split,)
    for split in splits:
        if split != "django":
            mirror(split)  # before hours of work, not after
    results: dict[str, dict[str, Any]] = {}
    for split in splits:
        instances = load_instances(split, args.limit, args.series)
        if not instances:
            raise SystemExit(f"no {split} instances (series {args.series!r})")
        start = time.perf_counter()
        scores = run(instances, args.reindex, args.embedder)
        results[split] = summary(scores) | {"wall_s": time.perf_counter() - start}
        if args.show_misses:
            for miss in scores.misses:
                print(json.dumps(miss), file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    whole = (not args.no_write and args.limit is None and args.series is None
             and args.embedder == "none")
    if "django" in results:
        wall = results["django"]["wall_s"]
        body = report(results["django"], BUDGETS) + f"- Run: {wall:.0f} s.\n"
        print(body)
        if whole:
            write_section(args.out, "swe", "SWE-bench Django split: whole issue texts in, "
                          "both tools scored alike (targets in the table)", body)
    body = side_by_side(results, BUDGETS, KS)
    print(body)
    if whole and len(results) == len(SPLITS):
        write_section(args.out, "swe-splits", "SWE-bench splits side by side: Django, sympy, "
                      "sphinx (edited lines delivered first)", body)


if __name__ == "__main__":
    main()
