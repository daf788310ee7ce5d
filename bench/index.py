"""Reconcile (``repoctx index``) speed on Django's source distribution.

Every figure sits next to a floor measured in the same run, on the same tree:

- cold index (fresh store, default workers) vs the single-process cold floor (each the
  best of ``--repeat`` runs, as other load only ever slows a run down): reading +
  SHA-256 of every walked file, tree-sitter extraction of every file with an extractor
  (``.py``) and ``count_tokens`` of every text file (no NUL in the first 8 KiB,
  <= 4 MiB, decoded utf-8 ``errors="replace"``). Target <= 1.0x.
- no-op re-index vs the stat floor (``os.stat`` of every walked file). Target <= 2x.
  A pass that leaves nothing to do saves its walk and the next one rechecks it by stat
  (``reconcile/walk_cache``); the first no-op after the index is reported on its own.
- one-file edit (a function appended to ``django/db/models/query.py``), end to end,
  with the store already open and including ``open_store``. Target < 300 ms.
- peak RSS of a cold index run in a subprocess. Target < 1 GiB.
- a >= 50,000-file tree (hard-linked copies of Django under ``copyNN/``): cold index
  once, then no-op re-index vs its stat floor. Target <= 2x.

The corpus is hard-linked into a temp dir; the edit replaces the file (new inode), so
the cached corpus is never modified. OS caches cannot be dropped: every file is read
once before the floor, so floor and index both run on a warm page cache.

    python bench/index.py [--quick] [--skip-50k] [--repeat N] [--out docs/benchmarks.md]
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _corpus, _report beside us

from _corpus import django_source  # noqa: E402
from _report import Results, load_average, run_and_write, tree_bench_arguments  # noqa: E402

from repoctx import open_store  # noqa: E402
from repoctx.extract import extract, extractor_for, language_of  # noqa: E402
from repoctx.reconcile import PassOptions, PassReport, reconcile_pass, walk  # noqa: E402
from repoctx.reconcile.nodes.content_record import MAX_READ_BYTES  # noqa: E402
from repoctx.reconcile.walk import is_binary  # noqa: E402
from repoctx.reconcile.walk_cache import RACY_NS  # noqa: E402
from repoctx.store import Store  # noqa: E402
from repoctx.tokenizer import count_tokens, encoding  # noqa: E402

EDITED = "django/db/models/query.py"
APPENDED = "\n\ndef bench_index_added(queryset, n=1):\n    \"\"\"Added by bench/index.py.\"\"\"\n" \
           "    return list(queryset[:n])\n"
BIG_FILES = 50_000
REPO_ID = "django"
MIB = 1 << 20

_CHILD = """
import json, resource, sys, time
from pathlib import Path
from repoctx import open_store
from repoctx.reconcile import reconcile_pass
root, store_dir = Path(sys.argv[1]), Path(sys.argv[2])
start = time.perf_counter()
with open_store(root, repo_id=sys.argv[3], store_dir=store_dir) as store:
    report = reconcile_pass(store, root)
print(json.dumps({"seconds": time.perf_counter() - start, "scanned": report.scanned,
                  "self_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "workers_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


# --- the tree ---------------------------------------------------------------------------


def link_tree(source: Path, dest: Path) -> int:
    """Hard-link every file of ``source`` under ``dest`` (copy across filesystems)."""
    count = 0
    for folder, dirs, files in os.walk(source):
        dirs.sort()
        target = dest / Path(folder).relative_to(source)
        target.mkdir(parents=True, exist_ok=True)
        for name in files:
            try:
                os.link(os.path.join(folder, name), target / name)
            except OSError:
                shutil.copy2(os.path.join(folder, name), target / name)
            count += 1
    return count


def warm(root: Path, paths: list[str]) -> None:
    """Read every file once so the floor and the index both meet a warm page cache."""
    for rel in paths:
        with open(os.path.join(root, rel), "rb") as handle:
            while handle.read(MIB):
                pass


def walked(root: Path, store_dir: Path) -> tuple[list[str], float]:
    """The walk's file list and its time (the walk the reconcile does)."""
    start = time.perf_counter()
    found = walk(root, store_dir=store_dir)
    return [f.path for f in found.files], time.perf_counter() - start


# --- floors -----------------------------------------------------------------------------


@dataclass
class Floor:
    """Single-process cold floor, per component."""

    read_hash: float = 0.0
    extract: float = 0.0
    tokens: float = 0.0
    files: int = 0
    parsed: int = 0
    texts: int = 0

    @property
    def total(self) -> float:
        """Sum of the components."""
        return self.read_hash + self.extract + self.tokens


def cold_floor(root: Path, paths: list[str]) -> Floor:
    """Read + hash every file, extract every ``.py``, count tokens of every text file."""
    floor, clock = Floor(files=len(paths)), time.perf_counter
    for rel in paths:
        t0 = clock()
        with open(os.path.join(root, rel), "rb") as handle:
            data = handle.read()
        hashlib.sha256(data).hexdigest()
        t1 = clock()
        floor.read_hash += t1 - t0
        if len(data) > MAX_READ_BYTES or is_binary(data):
            continue
        text = data.decode("utf-8", errors="replace")
        t2 = clock()
        if extractor_for(language_of(rel)) is not None:
            extract(rel, text)
            floor.parsed += 1
        t3 = clock()
        count_tokens(text)
        floor.extract += t3 - t2
        floor.tokens += (clock() - t3) + (t2 - t1)  # the decode is charged to tokens
        floor.texts += 1
    return floor


def stat_floor(root: Path, paths: list[str]) -> float:
    """``os.stat`` of every walked file."""
    start = time.perf_counter()
    for rel in paths:
        os.stat(os.path.join(root, rel))
    return time.perf_counter() - start


def best(repeat: int, fn: Callable[[], float]) -> float:
    """The fastest of ``repeat`` runs (the least disturbed by other load)."""
    return min(fn() for _ in range(repeat))


# --- index measurements ------------------------------------------------------------------


def timed_pass(store: Store, root: Path) -> tuple[float, PassReport]:
    """One in-process reconcile pass with default options."""
    start = time.perf_counter()
    report = reconcile_pass(store, root, PassOptions())
    return time.perf_counter() - start, report


def cold_index(root: Path, store_dir: Path) -> tuple[float, PassReport, Store]:
    """Fresh store, one pass; returns the store still open."""
    start = time.perf_counter()
    store = open_store(root, repo_id=REPO_ID, store_dir=store_dir)
    report = reconcile_pass(store, root, PassOptions())
    return time.perf_counter() - start, report, store


def best_cold(root: Path, store_dir: Path, repeat: int) -> tuple[float, PassReport, Store]:
    """The fastest of ``repeat`` cold indexes, each into a fresh store; the last stays open."""
    runs = []
    for i in range(repeat):
        if runs:
            runs[-1][2].close()
            shutil.rmtree(store_dir)
        runs.append(cold_index(root, store_dir))
        print(f"cold index {i + 1}/{repeat}: {runs[-1][0]:.2f}s (load {load_average()})",
              file=sys.stderr)
    fastest = min(runs, key=lambda run: run[0])
    return fastest[0], fastest[1], runs[-1][2]


def noop(store: Store, root: Path, repeat: int) -> tuple[float, PassReport]:
    """The fastest of ``repeat`` no-op passes; every one must write nothing."""
    runs = [timed_pass(store, root) for _ in range(repeat)]
    for _, report in runs:
        if report.records_written != 0:
            raise SystemExit(f"no-op pass wrote {report.records_written} records")
    return min(runs, key=lambda run: run[0])


def replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` as a new inode, so the hard-linked corpus file is left alone."""
    tmp = path.with_name(path.name + ".bench-tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def one_edit(root: Path, store_dir: Path, store: Store | None,
             data: bytes) -> tuple[float, PassReport]:
    """Write ``data`` to the edited file and re-index; opens the store if none given."""
    replace_file(root / EDITED, data)
    start = time.perf_counter()
    if store is not None:
        report = reconcile_pass(store, root, PassOptions())
    else:
        with open_store(root, repo_id=REPO_ID, store_dir=store_dir) as own:
            report = reconcile_pass(own, root, PassOptions())
    elapsed = time.perf_counter() - start
    if report.changed != 1 or report.added or report.removed:
        raise SystemExit(f"one-file edit was not seen as one change: {report.text()}")
    return elapsed, report


def edits(root: Path, store_dir: Path, store: Store, repeat: int) -> dict[str, list[float]]:
    """Edit + revert ``repeat`` times, with the store open and with ``open_store``."""
    original = (root / EDITED).read_bytes()
    edited = original + APPENDED.encode()
    times: dict[str, list[float]] = {"open": [], "open_revert": [], "with_open": [],
                                     "with_open_revert": []}
    for _ in range(repeat):
        times["open"].append(one_edit(root, store_dir, store, edited)[0])
        times["open_revert"].append(one_edit(root, store_dir, store, original)[0])
    store.close()
    for _ in range(repeat):
        times["with_open"].append(one_edit(root, store_dir, None, edited)[0])
        times["with_open_revert"].append(one_edit(root, store_dir, None, original)[0])
    return times


def peak_rss(root: Path, store_dir: Path) -> dict:
    """A cold index in a fresh interpreter: its time and the writer's and workers' peaks."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(root), str(store_dir), REPO_ID],
                          capture_output=True, text=True, check=True)
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["tree_kib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return out


# --- the run -----------------------------------------------------------------------------


def run_django(tmp: Path, repeat: int, rss: bool, res: Results) -> tuple[Floor, float]:
    """Every Django-sized measurement; returns the floor and the cold index time."""
    root = tmp / "django"
    link_tree(django_source(), root)
    store_dir = tmp / "store"
    paths, walk_s = walked(root, store_dir)
    warm(root, paths)
    encoding()  # load the tokenizer before timing, as a long-lived process would have it
    floor = min((cold_floor(root, paths) for _ in range(repeat)), key=lambda f: f.total)
    res.notes.append(f"Corpus: `{django_source().name}`, {len(paths):,} walked files, "
                     f"{floor.texts:,} text, {floor.parsed:,} parsed; "
                     f"{sum(os.path.getsize(root / p) for p in paths) / 1e6:.1f} MB.")
    res.add(f"cold floor: read + SHA-256 ({floor.files:,} files)", floor.read_hash)
    res.add(f"cold floor: parse + extract ({floor.parsed:,} .py)", floor.extract)
    res.add(f"cold floor: decode + count_tokens ({floor.texts:,} text files)", floor.tokens)
    res.add("**cold floor, single process (sum)**", floor.total)
    print(f"floor done {floor.total:.2f}s (load {load_average()})", file=sys.stderr)
    cold_s, report, store = best_cold(root, store_dir, repeat)
    res.add(f"**cold index** (fresh store, {os.cpu_count()} workers, in process, best of "
            f"{repeat})", cold_s, floor.total, 1.0, "<= 1.0x")
    phases = ", ".join(f"{k} {v:.2f} s" for k, v in report.seconds.items())
    res.notes.append(f"Cold index phases: {phases}; {report.records_written:,} records, "
                     f"{report.symbols_written:,} symbols, {report.xref_edges_written:,} "
                     f"xref edges (load {load_average()}).")
    measure_noop(root, store_dir, store, paths, walk_s, repeat, res, "")
    times = edits(root, store_dir, store, repeat)
    res.add(f"one-file edit, store open (median of {repeat}; `{EDITED}` + 1 function)",
            statistics.median(times["open"]), limit=0.3, target="< 300 ms")
    res.add("one-file edit, including `open_store`", statistics.median(times["with_open"]),
            limit=0.3, target="< 300 ms")
    res.notes.append("One-file edits (s): " + "; ".join(
        f"{k} {', '.join(f'{t:.3f}' for t in v)}" for k, v in times.items()) + ".")
    if rss:
        measure_rss(root, tmp / "store-rss", floor, res)
    return floor, cold_s


def measure_noop(root: Path, store_dir: Path, store: Store, paths: list[str], walk_s: float,
                 repeat: int, res: Results, label: str) -> None:
    """No-op re-index vs the stat floor, and the walk alone."""
    stat_s = best(repeat, lambda: stat_floor(root, paths))
    walk_s = min(walk_s, best(repeat, lambda: walked(root, store_dir)[1]))
    first_s, first = noop(store, root, 1)  # the first pass after the index
    noop_s, report = noop(store, root, repeat)
    if "walk" in report.seconds:
        raise SystemExit("a repeated no-op pass walked: no pass saved its walk")
    how = ("walked: the saved walk was not reusable (a directory changed within "
           f"{RACY_NS / 1e9:g} s of the index's start holds an untrusted ctime)"
           if "walk" in first.seconds
           else "the index's walk rechecked by stat")
    res.add(f"{label}stat floor (`os.stat` x {len(paths):,})", stat_s)
    res.add(f"{label}walk alone", walk_s, stat_s)
    res.add(f"{label}first no-op after the index ({how})", first_s, stat_s)
    res.add(f"{label}**no-op re-index** (best of {repeat}; records written "
            f"{report.records_written})", noop_s, stat_s, 2.0, "<= 2x")
    for name, run in (("First no-op", first), ("No-op", report)):
        phases = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in run.seconds.items())
        res.notes.append(f"{label}{name} phases: {phases}.")
    print(f"{label}no-op {noop_s:.3f}s vs stat {stat_s:.3f}s", file=sys.stderr)


def measure_rss(root: Path, store_dir: Path, floor: Floor, res: Results) -> None:
    """Peak RSS of a cold index in a subprocess (target on writer + workers, summed)."""
    out = peak_rss(root, store_dir)
    writer, worker = out["self_kib"] / 1024, out["workers_kib"] / 1024
    workers = os.cpu_count() or 1
    total = writer + workers * worker
    res.add_text(f"peak RSS, cold index in a subprocess (writer + {workers} x worker)",
                 f"{total:,.0f} MiB", "< 1 GiB", total < 1024)
    res.add("cold index in a fresh interpreter (same subprocess)", out["seconds"],
            floor.total, 1.0, "<= 1.0x")
    res.notes.append(f"Peak RSS: writer {writer:,.0f} MiB, largest worker {worker:,.0f} MiB "
                     f"(forked workers share pages with the writer, so the sum is an upper "
                     f"bound); the subprocess loads the tokenizer itself (load {load_average()}).")


def run_big(tmp: Path, floor: Floor, repeat: int, res: Results) -> None:
    """A >= 50,000-file tree of Django copies: cold index once, then no-op vs stat."""
    root, source, copies = tmp / "big", django_source(), 0
    files = 0
    while files < BIG_FILES:
        files += link_tree(source, root / f"copy{copies:02d}")
        copies += 1
    store_dir = tmp / "store-big"
    paths, walk_s = walked(root, store_dir)
    warm(root, paths)
    scaled = floor.total * len(paths) / floor.files
    cold_s, report, store = cold_index(root, store_dir)
    label = f"50k tree ({copies} copies, {len(paths):,} files): "
    res.add(f"{label}cold index (floor: Django floor scaled by file count)", cold_s, scaled)
    phases = ", ".join(f"{k} {v:.2f} s" for k, v in report.seconds.items())
    res.notes.append(f"{label}cold index phases: {phases} (load {load_average()}).")
    print(f"50k cold index {cold_s:.2f}s", file=sys.stderr)
    measure_noop(root, store_dir, store, paths, walk_s, repeat, res, label)
    store.close()


def main() -> None:
    args = tree_bench_arguments(__doc__.splitlines()[0], 3,
                                "one repeat, no RSS subprocess, no 50k tree")
    repeat = 1 if args.quick else args.repeat

    def run(tmp: Path, res: Results) -> None:
        floor, _ = run_django(tmp, repeat, not args.quick, res)
        if not (args.quick or args.skip_50k):
            run_big(tmp, floor, repeat, res)

    run_and_write(args.out, "index", "Indexing (reconcile pass) on Django; targets: cold "
                  "<= 1.0x single-process floor, no-op <= 2x stat floor, one-file edit "
                  "< 300 ms, peak RSS < 1 GiB", run, value="seconds")


if __name__ == "__main__":
    main()
