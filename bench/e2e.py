"""End to end: the ``repoctx index PATH --json`` a user runs, as a fresh process.

Every figure is the whole command, timed from outside (interpreter start, imports, the
reconcile pass, the ContextPull export with its search tables, the write-out), next to
the phases its ``--json`` reports (``seconds.*``, ``seconds.export``, ``seconds.wall``)
and to a floor measured in the same run on the same tree:

- cold floor = the single-process floor of ``bench/index.py`` (read + SHA-256 of every
  walked file, tree-sitter extraction of every ``.py``, cl100k ``count_tokens`` of every
  text file) + a bare one-transaction FTS5 insert of the export's sections (ContextPull's
  ``sections_fts`` declaration, into a fresh file, committed) + ``python -c "import
  repoctx"``. Target: cold ``repoctx index`` <= 1.0x.
- no-op floor = ``python -c "import repoctx"`` + ``os.stat`` of every walked file.
  Target: no-op ``repoctx index`` <= 2x.
- one-file edit (a function appended to ``django/db/models/query.py``) then ``repoctx
  index``: target <= 0.5 s.
- memory of the whole command tree: a sampler reads ``/proc/PID/smaps_rollup`` of the
  command and every descendant (its forked workers) every 50 ms and keeps the peak of
  the summed PSS (shared pages split between the processes sharing them: the memory
  the command really holds) and of the summed RSS (shared pages counted once per
  process: an upper bound). ``wait4``'s ``ru_maxrss`` (the largest single process) is
  reported beside them. Sampling can miss a peak shorter than 50 ms. Target < 1 GiB.
- bytes on disk (allocated blocks) of the LMDB store and the export vs the walked
  source bytes, with the export's largest tables (SQLite's ``dbstat``). Target <= 3x.
- a >= 50,000-file tree (hard-linked copies of Django under ``copyNN/``): cold wall vs
  the Django floor scaled by file count, and its memory.

Cold runs are the best of ``--repeat`` (other load only ever slows a run down); the
corpus is hard-linked into a temp dir and every file read once first, so floor and
command both meet a warm page cache.

With ``--peers`` it writes only the peers section instead: the same warm Django tree
indexed cold by repoctx (``--embedder none``) and by the tools an agent user could pick
instead (``_peers.PEERS``, each pinned in a venv of the bench's own), in rounds whose order
alternates, ``--repeat`` pairs of rounds: wall, CPU of the command tree, peak summed PSS
and index bytes on disk of each, and repoctx's wall against ``kit index``'s.

    python bench/e2e.py [--quick] [--skip-50k] [--peers] [--repeat N] [--out docs/benchmarks.md]
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _corpus, _report, index beside us

from _corpus import django_source  # noqa: E402
from _peers import PEERS, Peer, installed  # noqa: E402
from _process import run_sampled  # noqa: E402
from _report import Results, load_average, run_and_write, tree_bench_arguments  # noqa: E402
from index import (  # noqa: E402
    APPENDED,
    BIG_FILES,
    EDITED,
    Floor,
    cold_floor,
    link_tree,
    replace_file,
    stat_floor,
    walked,
    warm,
)

from repoctx.contextpull.schema import FTS_TOKENIZE  # noqa: E402
from repoctx.tokenizer import encoding  # noqa: E402

MIB = 1 << 20
EXPORT = "contextpull.sqlite"
REPOCTX = [sys.executable, "-m", "repoctx"]



@dataclass
class Run:
    """One ``repoctx index`` process: wall seconds, its ``--json``, memory peaks (KiB):
    ``peaks`` of the summed ``pss``, ``rss``, ``anon`` and ``file``, each with the
    seconds since the start when it was reached (``at_*``)."""

    wall: float
    payload: dict
    peaks: dict[str, float]
    maxrss_kib: int
    processes: int
    cpu: float = 0.0
    """User + system seconds of the command and the children it waited for."""
    tree_cpu: float = 0.0
    """User + system seconds of every process of the command tree, each its own as last
    sampled (so a process's last 50 ms may be missed)."""

    @property
    def pss_kib(self) -> int:
        """Peak of the summed PSS."""
        return int(self.peaks["pss"])

    @property
    def seconds(self) -> dict[str, float]:
        """The phases the command reported."""
        return self.payload["seconds"]


def run_index(root: Path, store_dir: Path, *extra: str) -> Run:
    """``repoctx index ROOT --store STORE --json`` as a fresh process, sampled for memory."""
    command = [*REPOCTX, "index", str(root), "--store", str(store_dir), "--json", *extra]
    # The keyword index of a default install, even where embedder weights are installed
    # (what embedding adds is bench/embedders.py's to measure).
    env = {**os.environ, "REPOCTX_DEFAULT_EMBEDDER": os.environ.get(
        "REPOCTX_DEFAULT_EMBEDDER", "none")}
    done = run_sampled(command, env)
    if done.returncode != 0:
        raise SystemExit(f"repoctx index failed ({done.returncode}): {done.err.decode()[-2000:]}")
    return Run(done.wall, json.loads(done.out), done.peaks, done.maxrss_kib, done.processes,
               done.cpu, done.tree_cpu)


def import_floor(repeat: int) -> float:
    """The fastest ``python -c "import repoctx"`` of ``repeat``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import repoctx"], check=True)
        times.append(time.perf_counter() - start)
    return min(times)


def fts_floor(export: Path, tmp: Path, repeat: int) -> tuple[float, int]:
    """A bare one-transaction FTS5 insert of the export's sections into a fresh file."""
    with sqlite3.connect(export) as src:
        rows = src.execute("SELECT id, heading_path, text FROM sections").fetchall()
    times = []
    for i in range(repeat):
        target = tmp / f"fts-floor-{i}.sqlite"
        start = time.perf_counter()
        conn = sqlite3.connect(target, isolation_level=None)
        conn.execute("CREATE VIRTUAL TABLE sections_fts USING fts5(id UNINDEXED, heading_path,"
                     f' text, tokenize = "{FTS_TOKENIZE}")')
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO sections_fts(id, heading_path, text) VALUES (?, ?, ?)",
                         rows)
        conn.execute("COMMIT")
        conn.close()
        times.append(time.perf_counter() - start)
        target.unlink()
    return min(times), len(rows)


# --- bytes on disk -------------------------------------------------------------------------


def disk_bytes(path: Path) -> int:
    """Allocated bytes of a file or of every file under a folder."""
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_blocks * 512 for p in files)


def export_tables(export: Path, top: int = 8) -> list[tuple[str, int]]:
    """The export's largest tables and indexes by page bytes (``dbstat``)."""
    with sqlite3.connect(f"file:{export}?mode=ro", uri=True) as conn:
        try:
            rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"
                                " ORDER BY 2 DESC").fetchall()
        except sqlite3.OperationalError:
            return []
    return rows[:top]


def measure_disk(store_dir: Path, source: int, label: str, res: Results) -> None:
    """LMDB + export bytes vs the source bytes, and the export's largest tables."""
    lmdb, export = disk_bytes(store_dir / "lmdb"), disk_bytes(store_dir / EXPORT)
    total = lmdb + export
    res.add_text(f"{label}store on disk: LMDB {lmdb / 1e6:.1f} MB + export "
                 f"{export / 1e6:.1f} MB", f"{total / 1e6:.1f} MB", "<= 3x", total <= 3 * source,
                 f"{source / 1e6:.1f} MB", f"{total / source:.2f}x")
    tables = ", ".join(f"`{n}` {b / 1e6:.1f}" for n, b in export_tables(store_dir / EXPORT))
    res.notes.append(f"{label}export's largest tables (MB): {tables}.")


# --- the run -------------------------------------------------------------------------------


def _phases(run: Run) -> str:
    return ", ".join(f"{k} {v:.2f} s" for k, v in sorted(run.seconds.items()))


def _memory_row(run: Run, label: str, res: Results) -> None:
    res.add_text(f"{label}peak memory of the command tree, summed PSS ({run.processes} "
                 "processes at most)", f"{run.pss_kib / 1024:,.0f} MiB", "< 1 GiB",
                 run.pss_kib < MIB)
    peaks = run.peaks
    res.notes.append(
        f"{label}memory peaks of the command tree (each with the second it was reached): "
        f"summed PSS {peaks['pss'] / 1024:,.0f} MiB ({peaks['at_pss']:.0f} s), of it "
        f"anonymous {peaks['anon'] / 1024:,.0f} MiB at most ({peaks['at_anon']:.0f} s) and "
        f"file-backed {peaks['file'] / 1024:,.0f} MiB at most ({peaks['at_file']:.0f} s: "
        f"the LMDB map and libraries, page cache the kernel may drop); summed RSS "
        f"{peaks['rss'] / 1024:,.0f} MiB (shared pages counted in every process); largest "
        f"single process {run.maxrss_kib / 1024:,.0f} MiB (`ru_maxrss`).")


def best_cold(root: Path, store_dir: Path, repeat: int) -> Run:
    """The fastest of ``repeat`` cold indexes, each into a fresh store (the last is kept)."""
    runs = []
    for i in range(repeat):
        shutil.rmtree(store_dir, ignore_errors=True)
        runs.append(run_index(root, store_dir))
        print(f"cold {i + 1}/{repeat}: {runs[-1].wall:.2f}s (load {load_average()})",
              file=sys.stderr)
    return min(runs, key=lambda r: r.wall)


def noop_runs(root: Path, store_dir: Path, repeat: int) -> list[Run]:
    """``repeat`` no-op indexes; each must write nothing and export nothing."""
    runs = [run_index(root, store_dir) for _ in range(repeat)]
    for run in runs:
        if run.payload["recordsWritten"] or not (run.payload["export"] or {}).get("unchanged"):
            raise SystemExit(f"a no-op index wrote: {run.payload['recordsWritten']} records, "
                             f"export {run.payload['export']}")
    return runs


def edit_runs(root: Path, store_dir: Path, repeat: int) -> list[Run]:
    """Edit (and revert) then index, ``repeat`` times each."""
    original = (root / EDITED).read_bytes()
    runs = []
    for _ in range(repeat):
        for data in (original + APPENDED.encode(), original):
            replace_file(root / EDITED, data)
            run = run_index(root, store_dir)
            if run.payload["changed"] != 1:
                raise SystemExit(f"an edit was not one change: {run.payload}")
            runs.append(run)
    return runs


@dataclass
class DjangoFloor:
    """The floors of one run."""

    single: Floor
    fts: float
    imports: float
    files: int

    @property
    def cold(self) -> float:
        """Single-process floor + FTS5 insert + ``import repoctx``."""
        return self.single.total + self.fts + self.imports


def run_django(tmp: Path, repeat: int, res: Results) -> DjangoFloor:
    """Every Django measurement; returns the floors for the big tree."""
    root, store_dir = tmp / "django", tmp / "store"
    link_tree(django_source(), root)
    paths, _ = walked(root, tmp / "store-walk")
    warm(root, paths)
    source = sum(os.path.getsize(root / p) for p in paths)
    encoding()  # the floor counts tokens with the tokenizer loaded, as bench/index.py
    single = min((cold_floor(root, paths) for _ in range(repeat)), key=lambda f: f.total)
    imports = import_floor(max(3, repeat))
    cold = best_cold(root, store_dir, repeat)
    fts, n_sections = fts_floor(store_dir / EXPORT, tmp, repeat)
    floor = DjangoFloor(single, fts, imports, len(paths))
    res.notes.append(f"Corpus: `{django_source().name}`, {len(paths):,} walked files "
                     f"({source / 1e6:.1f} MB), {single.texts:,} text, {single.parsed:,} "
                     f"parsed; {n_sections:,} exported sections.")
    res.add(f"floor: read + SHA-256 + parse + count_tokens, single process "
            f"({single.files:,} files)", single.total)
    res.add(f"floor: one-transaction FTS5 insert of the export's {n_sections:,} sections",
            fts)
    res.add('floor: `python -c "import repoctx"` (best of 3)', imports)
    res.add("**cold floor (sum)**", floor.cold)
    res.add(f"**cold `repoctx index --json`**, fresh process and store (best of {repeat})",
            cold.wall, floor.cold, 1.0, "<= 1.0x")
    res.notes.append(f"Cold phases (`--json` `seconds`): {_phases(cold)} (load {load_average()}); "
                     f"CPU of the command tree {cold.tree_cpu:.1f} s.")
    _memory_row(cold, "Cold Django: ", res)
    measure_disk(store_dir, source, "Django: ", res)
    stat_s = min(stat_floor(root, paths) for _ in range(max(3, repeat)))
    noops = noop_runs(root, store_dir, max(3, repeat))
    fastest = min(noops, key=lambda r: r.wall)
    res.add(f"stat floor (`os.stat` x {len(paths):,})", stat_s)
    res.add(f"**no-op `repoctx index --json`** (best of {len(noops)})", fastest.wall,
            imports + stat_s, 2.0, "<= 2x")
    res.notes.append(f"No-op walls (s): {', '.join(f'{r.wall:.3f}' for r in noops)}; "
                     f"phases of the fastest: {_phases(fastest)}.")
    edits = edit_runs(root, store_dir, max(2, repeat))
    median = statistics.median(r.wall for r in edits)
    res.add(f"**one-file edit then `repoctx index --json`** (median of {len(edits)}; "
            f"`{EDITED}` + 1 function, and reverted)", median, limit=0.5, target="<= 0.5 s")
    res.notes.append(f"Edit walls (s): {', '.join(f'{r.wall:.3f}' for r in edits)}; phases "
                     f"of the first: {_phases(edits[0])}.")
    return floor


def run_big(tmp: Path, floor: DjangoFloor, res: Results) -> None:
    """A >= 50,000-file tree of Django copies: one cold index, its wall and memory."""
    root, source, copies, files = tmp / "big", django_source(), 0, 0
    while files < BIG_FILES:
        files += link_tree(source, root / f"copy{copies:02d}")
        copies += 1
    store_dir = tmp / "store-big"
    paths, _ = walked(root, tmp / "store-big-walk")
    warm(root, paths)
    scaled = (floor.single.total + floor.fts) * len(paths) / floor.files + floor.imports
    run = run_index(root, store_dir)
    label = f"50k tree ({copies} copies, {len(paths):,} files): "
    res.add(f"{label}cold `repoctx index --json` (floor: Django's scaled by file count)",
            run.wall, scaled, 1.0, "<= 1.0x")
    _memory_row(run, label, res)
    res.notes.append(f"{label}cold phases: {_phases(run)} (load {load_average()}); CPU of the "
                     f"command tree {run.tree_cpu:.1f} s.")
    source_bytes = sum(os.path.getsize(root / p) for p in paths)
    measure_disk(store_dir, source_bytes, label, res)
    print(f"50k cold {run.wall:.2f}s", file=sys.stderr)


@dataclass(frozen=True)
class Cold:
    """One cold index by one tool: wall and CPU seconds, peak summed PSS, disk bytes."""

    wall: float
    cpu: float
    pss_kib: int
    disk: int


def cold_repoctx(root: Path, out: Path) -> Cold:
    """``repoctx index --embedder none`` into a fresh store under ``out``."""
    run = run_index(root, out / "store", "--embedder", "none")
    return Cold(run.wall, run.tree_cpu, run.pss_kib, disk_bytes(out / "store"))


def cold_peer(peer: Peer, root: Path, out: Path) -> Cold:
    """The peer's own index of ``root``, everything it writes under ``out``."""
    out.mkdir(parents=True)
    command, env = peer.command(root, out)
    done = run_sampled(command, env, cwd=out)
    if done.returncode != 0:
        raise SystemExit(f"{peer.key} failed ({done.returncode}): {done.err.decode()[-2000:]}")
    return Cold(done.wall, done.tree_cpu, int(done.peaks["pss"]), disk_bytes(out))


def run_peers(tmp: Path, pairs: int, res: Results) -> None:
    """The same warm Django tree indexed by repoctx and by each peer, in rounds whose
    order alternates (forward, then reversed), ``pairs`` pairs of rounds."""
    root = tmp / "django"
    link_tree(django_source(), root)
    paths, _ = walked(root, tmp / "store-walk")
    warm(root, paths)
    source = sum(os.path.getsize(root / p) for p in paths)
    for peer in PEERS:
        installed(peer)
    tools = ["repoctx", *(p.key for p in PEERS)]
    runs: dict[str, list[Cold]] = {t: [] for t in tools}
    for round_no in range(2 * pairs):
        order = tools if round_no % 2 == 0 else tools[::-1]
        for tool in order:
            out = tmp / f"round{round_no}-{tool}"
            peer = next((p for p in PEERS if p.key == tool), None)
            cold = cold_repoctx(root, out) if peer is None else cold_peer(peer, root, out)
            runs[tool].append(cold)
            print(f"round {round_no + 1}: {tool} {cold.wall:.2f}s (load {load_average()})",
                  file=sys.stderr)
            shutil.rmtree(out, ignore_errors=True)
    _peer_rows(runs, source, len(paths), res)


def _peer_rows(runs: dict[str, list[Cold]], source: int, files: int, res: Results) -> None:
    ours = statistics.median(c.wall for c in runs["repoctx"])
    labels = {"repoctx": "repoctx `index --embedder none`",
              **{p.key: p.label for p in PEERS}}
    res.notes.append(f"Corpus: `{django_source().name}`, {files:,} walked files "
                     f"({source / 1e6:.1f} MB); every tool meets the same warm, hard-linked "
                     "tree; ratio = the tool's median wall ÷ repoctx's.")
    for tool, colds in runs.items():
        wall = statistics.median(c.wall for c in colds)
        res.add(f"{labels[tool]}: cold wall (median of {len(colds)})", wall, ours)
        per_round = ", ".join(f"{c.wall:.1f}" for c in colds)
        disk = max(c.disk for c in colds)
        res.notes.append(
            f"{labels[tool]}: walls {per_round} s; CPU of the command tree (median) "
            f"{statistics.median(c.cpu for c in colds):.1f} s; peak summed PSS "
            f"{max(c.pss_kib for c in colds) / 1024:,.0f} MiB; index on disk "
            f"{disk / 1e6:.1f} MB ({disk / source:.2f}x the source).")
    kit = statistics.median(c.wall for c in runs["cased-kit"])
    res.add("**repoctx cold wall ÷ `kit index`'s**", ours, kit, 2.0, "<= 2x")
    disk = max(c.disk for c in runs["repoctx"])
    res.add_text("**repoctx store on disk (LMDB + export)**", f"{disk / 1e6:.1f} MB", "<= 2x",
                 disk <= 2 * source, f"{source / 1e6:.1f} MB", f"{disk / source:.2f}x")


def main() -> None:
    args = tree_bench_arguments(__doc__.splitlines()[0], 2, "one repeat, no 50k tree",
                                peers="only the peers section: repoctx and the tools an "
                                "agent user could pick instead, alternating")
    repeat = 1 if args.quick else args.repeat
    if args.peers:
        run_and_write(args.out, "e2e-peers", "Peers: a cold index of Django by repoctx and by "
                      "the tools an agent user could pick instead; targets: repoctx <= 2x "
                      "`kit index`, store <= 2x source bytes",
                      lambda tmp, res: run_peers(tmp, repeat, res))
        return

    def run(tmp: Path, res: Results) -> None:
        floor = run_django(tmp, repeat, res)
        if not (args.quick or args.skip_50k):
            run_big(tmp, floor, res)

    run_and_write(args.out, "e2e", "End to end: `repoctx index` as a user runs it, on Django; "
                  "targets: cold <= 1.0x floor, no-op <= 2x, one-file edit <= 0.5 s, store "
                  "<= 3x source bytes, RSS < 1 GiB", run)


if __name__ == "__main__":
    main()
