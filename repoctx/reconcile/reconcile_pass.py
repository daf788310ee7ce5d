"""reconcile/reconcile_pass — one incremental, resumable pass over a repository.

walk -> classify (by ``(size, mtime_ns)``, then SHA-256) -> analyse (every core) ->
project and write, in batches of files where each batch is one LMDB transaction
holding the file nodes and everything projected from them. Back-fills (seed 003)
run over pure-unchanged files missing a marker, unified into one node rewrite per
file; the cross-reference seed reads stored forward references instead of
re-parsing. A pass that finds nothing to change writes nothing. What only a pass with
work needs (analysis, projection, the tokenizer, the extractors, the worker pool) is
imported when the walk cache cannot settle the pass: a no-op ``repoctx index`` starts
without it.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from repoctx.collector import collector_paused
from repoctx.crdt.record import Record
from repoctx.errors import CorruptRecordError, StoreError
from repoctx.reconcile import coverage_marker, walk_cache
from repoctx.reconcile.git_excludes import ExcludeFile, exclude_files
from repoctx.reconcile.lock import writer_lock
from repoctx.reconcile.nodes import file_node as fn
from repoctx.reconcile.report import PassReport
from repoctx.reconcile.status import write_status
from repoctx.store import Store
from repoctx.trees import Batch

if TYPE_CHECKING:
    from repoctx.reconcile.steps import Live, State, Work
    from repoctx.reconcile.walk import Walk, WalkedFile

Progress = Callable[[int], None]


@dataclass(frozen=True, slots=True)
class PassOptions:
    """How a pass runs. The three projection switches exist to reproduce stores
    written by older versions (before a projection existed); normal use keeps them on."""

    full: bool = False
    content: bool = True
    symbols: bool = True
    xref: bool = True
    max_depth: int = 64
    max_files: int = 200_000
    workers: int = 0
    """Worker processes for analysis; 0 means one per core."""
    batch_files: int = 256
    wait: bool = True
    """Wait for another indexer to finish instead of failing at once."""
    coverage: Path | None = Path(".coverage")
    """The coverage.py data file to ingest (relative to the root); None: none."""


def _binary_key(store: Store) -> str:
    """Store-local cache of known binary files: path -> [size, mtime_ns]."""
    return f"binary/{store.repo_id}"


@collector_paused
def reconcile_pass(store: Store, root: Path, options: PassOptions = PassOptions(),
                   progress: Callable[[int, int], Progress] | None = None) -> PassReport:
    """Bring the store's records for ``root`` in line with the files on disk."""
    report = PassReport(store.repo_id)
    started = time.perf_counter()
    with writer_lock(store.path, wait=options.wait):
        write_status(store.path, {"status": "indexing", "phase": "walk", "repoId": store.repo_id})
        try:
            excludes = exclude_files(str(root.resolve()))
            scope = _scope(store, options, excludes)
            saved = None if options.full else walk_cache.load(store, root, scope)
            if saved is not None:
                with _timed(report, "recheck"):
                    settled = walk_cache.recheck(saved)
                if settled is not None:
                    _report_settled(report, settled)
                    _coverage(store, root, options, report)
                    return _finished(store, report, started)
            from repoctx.reconcile.walk import (
                walk,  # here: a pass the saved walk settles never walks
            )

            generation = store.trees.generation(fn.STRUCTURAL)
            walked_ns = time.time_ns()
            with _timed(report, "walk"):
                found = walk(root, store_dir=store.path, max_depth=options.max_depth,
                             max_files=options.max_files,
                             previous=saved.listings() if saved is not None else None,
                             excludes=excludes)
            with _timed(report, "classify"):
                plan = _classify(store, found, options, report,
                                 saved.settled_stats() if saved is not None else {})
            write_status(store.path, {"status": "indexing", "phase": "project",
                                      "repoId": store.repo_id, "files": len(plan.work)})
            generation += _write(store, root, options, report, plan, progress)
            report.nodes = plan.live.lend(generation, found.files, walked_ns)
            binary = _settled(found, plan, options)
            if binary is not None:
                walk_cache.save(store, root, found, binary, scope, generation, walked_ns)
            _coverage(store, root, options, report)
        except Exception as exc:
            write_status(store.path, {"status": "failed", "repoId": store.repo_id,
                                      "lastError": f"{type(exc).__name__}: {exc}"})
            raise
        return _finished(store, report, started)


def _finished(store: Store, report: PassReport, started: float) -> PassReport:
    report.seconds["total"] = time.perf_counter() - started
    write_status(store.path, {"status": "ready", "repoId": store.repo_id,
                              "report": report.as_json(), "finishedAt": time.time()})
    return report


def _coverage(store: Store, root: Path, options: PassOptions, report: PassReport) -> None:
    """Ingest the coverage data file, last: it maps onto the files the pass indexed."""
    if options.coverage is None:
        return
    data_file = root / options.coverage  # (an absolute one stays itself)
    done, last = coverage_marker.settled(store, data_file)
    if done:
        report.coverage = last
        return
    from repoctx.reconcile.coverage_ingest import ingest_coverage

    with _timed(report, "coverage"):
        try:
            found = ingest_coverage(store, root, data_file)
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001 - fail open: derived data, and the
            # pass's own writes are already committed
            report.warnings.append(f"coverage: not ingested ({type(exc).__name__}: {exc})")
            return
    if found is not None:
        report.coverage = found.as_json()
        if found.ingested:
            report.warnings.extend(f"coverage: {w}" for w in found.warnings)


def _scope(store: Store, options: PassOptions, excludes: tuple[ExcludeFile, ...] = ()) -> tuple:
    """Everything besides the tree and the store's records that decides what a pass does:
    what decides the walk first (``walk_cache.walk_scope``: git's exclude files among it,
    so editing one must re-walk), then the projections (a new shape of the declarations
    unsettles a settled tree, so the next pass back-fills)."""
    return (walk_cache.walk_scope(store, options.max_depth, options.max_files, excludes),
            [options.content, options.symbols, options.xref, _grammar_packages(), fn.DECLS,
             fn.LINKS])


def _grammar_packages() -> str:
    """The tree-sitter grammar packages installed, by name: installing one makes a settled
    tree unsettled, so the next pass back-fills its language's symbols. Read from the
    import path's folders, importing nothing (a no-op pass stays cheap)."""
    names = set()
    for folder in sys.path:
        try:
            entries = os.listdir(folder or ".")
        except OSError:
            continue
        names.update(entry.split(".")[0] for entry in entries
                     if entry.startswith("tree_sitter_") and not entry.endswith("-info"))
    return ",".join(sorted(names))


def _report_settled(report: PassReport, settled: walk_cache.Settled) -> None:
    """Report an unchanged tree exactly as ``_classify`` reports it."""
    report.scanned = settled.scanned
    for path, reason in settled.skipped:
        report.skip(path, reason)
    for path in settled.binary:
        report.skip(path, "binary")
    report.unchanged = settled.scanned - len(settled.binary)


@contextmanager
def _timed(report: PassReport, phase: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    report.seconds[phase] = report.seconds.get(phase, 0.0) + time.perf_counter() - start


@dataclass
class _Plan:
    """What classification decided, and the state the pass keeps up to date."""

    live: Live
    binary: dict[str, list[int]]
    work: list[Work] = field(default_factory=list)
    seeds: list[fn.FileNode] = field(default_factory=list)
    removed: list[fn.FileNode] = field(default_factory=list)
    unsettled: bool = False
    """A projection failed: the next pass has work left even on an unchanged tree."""


def _classify(store: Store, found: Walk, options: PassOptions, report: PassReport,
              settled: dict[str, tuple[int, int]]) -> _Plan:
    """Split the walk into files to read, cross-reference seeds and removals.

    A file with the stat it had when the store was last settled (``settled``, from the
    saved walk) is unchanged and complete without decoding anything. For the others only
    size, mtime and markers are decoded while their stat still matches.
    """
    plan = _Plan(fn.load_records(store), store.trees.get_local(_binary_key(store), {}))
    report.scanned = len(found.files)
    for skip in found.skipped:
        report.skip(skip.path, skip.reason)
    for f in found.files:
        try:
            _classify_file(plan, f, options, report, settled)
        except Exception as exc:  # noqa: BLE001 - a node that does not decode: this file only
            from repoctx.reconcile.analyse import Job
            from repoctx.reconcile.steps import Work

            report.warnings.append(f"{f.path!r}: its node does not decode "
                                   f"({type(exc).__name__}: {exc}); read afresh")
            if isinstance(exc, CorruptRecordError):  # damaged bytes: the write replaces them
                del plan.live[f.path]
            plan.work.append(Work(Job(f.path, options.content, _wants_symbols(f.path, options)),
                                   None, False))
    walked = {f.path for f in found.files}
    for path in [p for p in plan.live if p not in walked and found.covers(p)]:
        try:
            plan.removed.append(fn.file_node(path, plan.live[path]))
        except Exception as exc:  # noqa: BLE001 - as above
            _failed(plan, report, path, exc)
    if options.symbols:
        report.warnings.extend(_missing_grammars(plan.work))
    return plan


def _missing_grammars(work: list[Work]) -> list[str]:
    """One warning per language whose files this pass reads without its grammar
    installed (they are indexed as text sections, without symbols)."""
    from repoctx.extract import language_of, missing_grammar

    counts: dict[str, int] = {}
    for item in work:
        package = missing_grammar(language_of(item.job.path))
        if package is not None:
            counts[package] = counts.get(package, 0) + 1
    return [f"no symbols for {n} file(s): the grammar package {package!r} is not "
            f"installed, so they are indexed as text only (`pip install {package}` and "
            "re-run `repoctx index` to extract them)" for package, n in sorted(counts.items())]


def _classify_file(plan: _Plan, f: WalkedFile, options: PassOptions, report: PassReport,
                   settled: dict[str, tuple[int, int]]) -> None:
    """Add one walked file to the plan (work, seed) or count it unchanged."""
    if f.path in plan.live and settled.get(f.path) == (f.size, f.mtime_ns):
        report.unchanged += 1  # (its node is not even checked: ``fn.LiveNodes``)
        return
    # Here, not at the top: a no-op pass never needs them, and ``analyse`` imports the
    # extractors (~13 ms of a no-op ``repoctx index``).
    from repoctx.reconcile.analyse import Job
    from repoctx.reconcile.steps import Work

    rec = plan.live.get(f.path)
    symbols = _wants_symbols(f.path, options)
    if rec is None:
        if _known_binary(plan, f):
            report.skip(f.path, "binary")  # known binary, unchanged: not read again
        else:
            plan.work.append(Work(Job(f.path, options.content, symbols), None, False))
        return
    size, mtime_ns, markers = fn.stat_of(rec)
    if options.full or (size, mtime_ns) != (f.size, f.mtime_ns):
        node = fn.file_node(f.path, rec)
        known = None if options.full else node.digest
        plan.work.append(Work(Job(f.path, options.content, symbols, known), node, False))
        return
    content, symbols, xref = _missing(markers, size, symbols, options)
    if content or symbols:
        job = Job(f.path, content, symbols)
        plan.work.append(Work(job, fn.file_node(f.path, rec), backfill=True))
    elif xref:
        plan.seeds.append(fn.file_node(f.path, rec))
    else:
        report.unchanged += 1


def _failed(plan: _Plan, report: PassReport, path: str, exc: Exception) -> None:
    """Leave ``path`` out of this pass, say why, and keep the next pass from skipping it."""
    from repoctx.reconcile.steps import not_indexed

    report.skip(path, "failed")
    report.warnings.append(not_indexed(path, f"{type(exc).__name__}: {exc}"))
    plan.unsettled = True


def _known_binary(plan: _Plan, f: WalkedFile) -> bool:
    """True if ``f`` is a binary file held with the stat it still has (not read again)."""
    return plan.binary.get(f.path) == [f.size, f.mtime_ns]


def _wants_symbols(path: str, options: PassOptions) -> bool:
    """True if this pass projects ``path``'s symbols (enabled, and a language we extract)."""
    from repoctx.extract import extractor_for, language_of

    return options.symbols and extractor_for(language_of(path)) is not None


def _missing(markers: tuple[str, ...], size: int, symbols: bool, options: PassOptions,
             ) -> tuple[bool, bool, bool]:
    """The projections (content, symbols, cross-references) a file still lacks; symbols
    projected in an older shape of the declarations, and content without the current
    shape of its links, are lacking too."""
    from repoctx.reconcile.nodes.content_record import MAX_READ_BYTES

    small = size <= MAX_READ_BYTES  # a larger file is re-checked by stat, projected once small
    return (small and options.content and not (fn.CONTENT in markers and fn.LINKS in markers),
            small and symbols and not (fn.SYMBOLS in markers and fn.DECLS in markers),
            options.xref and fn.SYMBOLS in markers and fn.XREF not in markers)


def _settled(found: Walk, plan: _Plan, options: PassOptions) -> list[str] | None:
    """The walked files held as known binaries if the pass left nothing to do, else None.

    Nothing is left when every walked file's node (or binary entry) has the walked stat
    and the nodes this pass wrote lack no projection: exactly when ``_classify`` would
    find no work on the same tree.
    """
    if plan.unsettled:
        return None
    written = {w.job.path for w in plan.work} | {n.path for n in plan.seeds}
    binary = []
    for f in found.files:
        if f.path not in plan.live:
            if not _known_binary(plan, f):
                return None  # unreadable (or changed) before it was ever indexed
            binary.append(f.path)
        elif f.path in written and not _complete(plan.live[f.path], f.size, f.mtime_ns,
                                                 options):
            return None
    return binary


def _complete(node: fn.FileNode | Record, size: int, mtime_ns: int, options: PassOptions,
              ) -> bool:
    """True if a node the pass wrote has the walked stat and every projection it wants."""
    if not isinstance(node, fn.FileNode) or (node.size, node.mtime_ns) != (size, mtime_ns):
        return False  # left as it was (unreadable), or changed while the pass ran
    return not any(_missing(node.markers, node.size, _wants_symbols(node.path, options),
                            options))


def _write(store: Store, root: Path, options: PassOptions, report: PassReport, plan: _Plan,
           progress: Callable[[int, int], Progress] | None) -> int:
    """Analyse and project, one write transaction per batch of files, then apply the
    cross-references; returns how many of the batches wrote the structural tree (each
    moved its generation by one)."""
    from repoctx.reconcile import xref_journal
    from repoctx.reconcile.pool import POOL_THRESHOLD, analyse_all, worker_pool
    from repoctx.reconcile.project import Counts
    from repoctx.reconcile.steps import State, write_steps
    from repoctx.reconcile.workers import default_workers

    known, changes = xref_journal.pending(store)  # an interrupted pass's edges come first
    state = State(Counts(changes=changes, journal_keys=known), report, plan.live,
                  dict(plan.binary))
    binary_before, writes_before = plan.binary, store.trees.writes
    steps = [("work", w) for w in plan.work] + [("seed", n) for n in plan.seeds] + [
        ("remove", n) for n in plan.removed]
    advance = progress(len(steps), 0) if progress else None
    structural = 0
    big = len(plan.work) >= POOL_THRESHOLD  # else a pool costs more than it saves
    with worker_pool(options.workers or default_workers() if big else 1) as pool:
        analyses = analyse_all(str(root), [w.job for w in plan.work], pool)
        with _timed(report, "project"):
            for start in range(0, len(steps), options.batch_files):
                chunk = [(kind, item, next(analyses) if kind == "work" else None)
                         for kind, item in steps[start:start + options.batch_files]]
                last = start + options.batch_files >= len(steps)
                close = (lambda batch: _close_pass(store, batch, state, binary_before,
                                                   writes_before)) if last else None
                written = write_steps(store, options, state, chunk, close)
                structural += 1 if written.get(fn.STRUCTURAL) else 0
                if advance:
                    advance(len(chunk))
            report.symbols_written = state.counts.symbols
            report.warnings.extend(state.counts.warnings)
        with _timed(report, "xref"):
            report.xref_edges_written = xref_journal.apply_pending(
                store, state.counts.changes, state.counts.journal_keys, pool=pool)
    report.records_written = store.trees.writes - writes_before
    plan.binary = state.binary
    plan.unsettled = plan.unsettled or bool(state.counts.warnings)
    return structural


def _close_pass(store: Store, batch: Batch, state: State, binary_before: dict[str, list[int]],
                writes_before: int) -> None:
    """The last batch's extras: the binary-file cache and the root node."""
    if state.binary != binary_before:
        batch.put_local(_binary_key(store), state.binary)
    if batch.written or store.trees.writes > writes_before:
        _finish(store, batch, state.report, state.live)


def _finish(store: Store, batch: Batch, report: PassReport, live: Live) -> None:
    """Record the counts and this pass on the root node, in the pass's last batch (so a
    crash can never leave them behind the file nodes)."""
    from repoctx.reconcile.nodes.root_node import root_delta

    symbols: set[str] = set()
    for path in live:
        symbols.update(live.symbols(path))
    summary = {"finishedAtTick": store.clock.last, "added": report.added,
               "changed": report.changed, "removed": report.removed,
               "touched": report.touched}
    tick = store.tick()
    batch.update(store.key(), lambda cur: root_delta(cur, len(live), len(symbols), summary,
                                                      tick, store.replica_id))
