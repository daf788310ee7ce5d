"""reconcile/coverage_ingest — the end of a pass: coverage.py's per-test data into the store.

When the repository holds a coverage data file (``.coverage`` by default) whose
``(size, mtime, digest)`` differs from the one last ingested (``coverage_marker``),
every measured file that maps to an indexed one (``coverage_paths``) gets a coverage
record (``nodes/coverage_record``) holding the store's digest of it and which tests
ran which of its lines; records of files no longer measured are retired. A file is
trusted only when it is not newer than the data file and holds every line the data
names; otherwise its record is marked stale, and reported, never used. A data file that
cannot be read, holds no per-test contexts, or takes too long is a warning; the pass
goes on either way.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from repoctx.errors import CoverageDataError
from repoctx.reconcile.coverage_data import DataStamp, coverage_data, stamp_of, stat_of
from repoctx.reconcile.coverage_marker import coverage_marker_key, marker
from repoctx.reconcile.coverage_paths import PathMap
from repoctx.reconcile.nodes import coverage_record as cr
from repoctx.reconcile.nodes import file_node as fn
from repoctx.reconcile.nodes.content_record import MAX_READ_BYTES
from repoctx.store import Store
from repoctx.trees import Batch, unescape_name

if TYPE_CHECKING:
    from coverage import CoverageData

MAX_SECONDS = 60.0
"""Reading stops past this (a huge suite's data): nothing is written but the marker, so
the same file is not read again by every pass."""
NO_CONTEXTS = "coverage has no per-test contexts (run pytest --cov --cov-context=test)"


@dataclass
class CoverageReport:
    """What an ingestion found (or, when the data file was unchanged, last found)."""

    files: int = 0
    contexts: int = 0
    stale: int = 0
    unmapped: int = 0
    warnings: list[str] = field(default_factory=list)
    ingested: bool = False
    """False when the data file was the one already ingested (the counts are its)."""

    def as_json(self) -> dict[str, Any]:
        """The report's JSON (every key one word, so camelCase as it stands)."""
        return asdict(self)


def ingest_coverage(store: Store, root: Path, path: Path) -> CoverageReport | None:
    """Bring the coverage records in line with the data file at ``path``, which
    ``coverage_marker.settled`` found changed; None when it is gone and nothing was
    ingested before."""
    noted = marker(store)
    stat = None
    try:
        stat = stat_of(path)
        if stat is None:
            return None if noted is None else _forget(store, noted)
        stamp = stamp_of(path, stat)
        if noted is not None and noted["sha256"] == stamp.sha256:
            _save_marker(store, stamp, noted["report"])  # touched, same bytes
            return CoverageReport(**{**noted["report"], "ingested": False})
        report = _ingest(store, root, path, stamp)
    except CoverageDataError as exc:
        report = CoverageReport(warnings=[str(exc)], ingested=True)
        if stat is not None:  # not read again until it changes
            _save_marker(store, DataStamp(*stat, ""), report.as_json())
    return report


def _save_marker(store: Store, stamp: DataStamp, report: dict[str, Any]) -> None:
    with store.batch() as batch:
        batch.put_local(coverage_marker_key(store), {
            "size": stamp.size, "mtimeNs": stamp.mtime_ns, "sha256": stamp.sha256,
            "report": report})


def _forget(store: Store, noted: dict[str, Any]) -> CoverageReport:
    """The data file is gone: so is what it said."""
    with store.batch() as batch:
        _retire_except(store, batch, set(), noted["mtimeNs"] + 1)
        batch.delete_local(coverage_marker_key(store))
    return CoverageReport(ingested=True)


def _ingest(store: Store, root: Path, path: Path, stamp: DataStamp) -> CoverageReport:
    report = CoverageReport(ingested=True)
    records: dict[str, cr.FileCoverage] | None = {}
    nodes = fn.load_all(store)
    with coverage_data(path) as data:
        if not data.measured_contexts() - {""}:
            report.warnings.append(f"{path}: {NO_CONTEXTS}")
        else:
            records = _read(data, PathMap(nodes, root), stamp, report, path)
    if records is not None:
        tick = store.tick()
        with store.batch() as batch:
            for source, cov in sorted(records.items()):
                cov = _checked(root, nodes[source], cov, stamp)
                report.stale += cov.stale is not None
                batch.update(store.key("coverage", source),
                             lambda cur, cov=cov: cr.coverage_delta(cur, cov, tick))
            _retire_except(store, batch, set(records), stamp.mtime_ns)
        report.files = len(records)
    _save_marker(store, stamp, report.as_json())
    return report


def _read(data: CoverageData, paths: PathMap, stamp: DataStamp, report: CoverageReport,
          path: Path) -> dict[str, cr.FileCoverage] | None:
    """Every mapped measured file's coverage (digests filled in by the caller), or None
    when reading ran out of time."""
    started = time.monotonic()
    tests: dict[str, tuple[str, str] | None] = {}
    lines: dict[str, dict[tuple[str, str], set[int]]] = {}
    for measured in sorted(data.measured_files()):
        if time.monotonic() - started > MAX_SECONDS:
            report.warnings.append(f"{path}: reading the coverage data took over "
                                   f"{MAX_SECONDS:.0f} s; not ingested")
            return None
        source = paths.source(measured)
        if source is None:
            report.unmapped += 1
            continue
        per_test = lines.setdefault(source, {})
        for line, contexts in data.contexts_by_lineno(measured).items():
            for context in contexts:
                if context not in tests:
                    tests[context] = paths.test(context) if context else None
                test = tests[context]
                if test is not None:
                    per_test.setdefault(test, set()).add(line)
    report.contexts = sum(test is not None for test in tests.values())
    return {source: cr.FileCoverage("", stamp.mtime_ns, None, tuple(
        cr.CoveredLines(test_path, name, cr.line_ranges(hit))
        for (test_path, name), hit in sorted(per_test.items())))
        for source, per_test in lines.items()}


def _checked(root: Path, node: fn.FileNode, cov: cr.FileCoverage, stamp: DataStamp,
             ) -> cr.FileCoverage:
    """``cov`` with the store's digest of the file, and why it is stale if it is."""
    stale = None
    last = max((r[-1][1] for r in (t.ranges for t in cov.tests) if r), default=0)
    if node.mtime_ns > stamp.mtime_ns:
        stale = "the file is newer than the coverage data"
    elif last and last > _line_count(root / node.path, node.size):
        stale = f"the coverage data names line {last}, past the end of the file"
    return cr.FileCoverage(node.digest, cov.measured_ns, stale, cov.tests)


def _line_count(path: Path, size: int) -> int:
    """Lines in the file (0 when it cannot be read: every line named is then past its end)."""
    if size > MAX_READ_BYTES:
        return 1 << 62  # not read for projection either; its stat decided
    try:
        data = path.read_bytes()
    except OSError:
        return 0
    return data.count(b"\n") + (not data.endswith(b"\n") and bool(data))


def _retire_except(store: Store, batch: Batch, keep: set[str], measured_ns: int) -> None:
    """Retire every coverage record of a file not in ``keep``."""
    prefix = store.key("coverage", "x")[:-1]
    tick = store.tick()
    for key, _ in store.trees.scan(prefix):
        source = unescape_name(key[len(prefix):])
        if source not in keep:
            batch.update(key, lambda cur: cr.retire_delta(cur, measured_ns, tick))
