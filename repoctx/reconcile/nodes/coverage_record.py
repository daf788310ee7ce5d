"""reconcile/nodes/coverage_record — the test coverage of one file at ``repo/{id}/coverage/{path}``.

A derived, store-local projection of coverage.py data (``reconcile/coverage_ingest``):
per measured source file, the digest the store held for it when the data was ingested,
when it was measured (the data file's mtime), whether it was already stale then, and
which tests executed which of its lines. One field, ``data``, an LWW register stamped
``(measured time, file digest)`` instead of the usual ``(tick, replica)``: the newest
measurement wins wherever and in whatever order the records meet, and two measurements
of one instant are ordered by digest (then by their encodings, as every register), so
the merge is the register's — commutative, associative, idempotent. A file no longer
measured is retired by a ``None`` written just after the measurement it replaces.
"""

from __future__ import annotations

from dataclasses import dataclass

from repoctx.crdt import lww_register, record
from repoctx.crdt.record import Record

DATA = "data"


@dataclass(frozen=True, slots=True)
class CoveredLines:
    """The lines of one file that one test executed, as sorted disjoint ranges."""

    path: str
    """The test file."""
    name: str
    """The test inside it (``TestA.test_b``; parameters left out)."""
    ranges: tuple[tuple[int, int], ...]
    """Inclusive ``(first, last)`` line ranges, 1-based."""

    def hits(self, start: int, end: int) -> bool:
        """True if the test executed a line in ``start..end``."""
        return any(first <= end and start <= last for first, last in self.ranges)


@dataclass(frozen=True, slots=True)
class FileCoverage:
    """What the coverage data says about one source file."""

    digest: str
    measured_ns: int
    stale: str | None
    """Why the data was not trusted at ingestion (None: it was)."""
    tests: tuple[CoveredLines, ...]

    def wire(self) -> list:
        """The register's value: ``[digest, measured_ns, stale, [[path, name, flat ranges]]]``
        (ranges flattened ``[first, last, first, last, ...]`` to stay compact)."""
        return [self.digest, self.measured_ns, self.stale,
                [[t.path, t.name, [n for r in t.ranges for n in r]] for t in self.tests]]


def line_ranges(lines: list[int] | set[int]) -> tuple[tuple[int, int], ...]:
    """Sorted line numbers folded into inclusive ranges (``[1, 2, 3, 7]`` -> ``(1, 3), (7, 7)``)."""
    out: list[tuple[int, int]] = []
    for line in sorted(lines):
        if out and line == out[-1][1] + 1:
            out[-1] = (out[-1][0], line)
        else:
            out.append((line, line))
    return tuple(out)


def coverage_delta(current: Record | None, cov: FileCoverage, tick: int) -> Record | None:
    """Delta recording ``cov`` (None when exactly that is held)."""
    if coverage_of(current) == cov:
        return None
    stamp = lww_register.LwwRegister(cov.measured_ns, cov.digest, cov.wire())
    return record.write({DATA: stamp}, tick)


def retire_delta(current: Record | None, measured_ns: int, tick: int) -> Record | None:
    """Delta retiring the record for a measurement at ``measured_ns`` that no longer
    covers the file (None when already retired)."""
    state = record.field_state(current, DATA, lww_register)
    if state.value is None:
        return None
    stamp = lww_register.LwwRegister(max(measured_ns, state.tick + 1), "", None)
    return record.write({DATA: stamp}, tick)


def coverage_of(rec: Record | None) -> FileCoverage | None:
    """The coverage held (None for a missing or retired record, or a value this version
    does not read: derived data, rebuilt by the next ingestion)."""
    value = record.field_state(rec, DATA, lww_register).value
    try:
        digest, measured_ns, stale, tests = value
        return FileCoverage(str(digest), int(measured_ns), stale, tuple(
            CoveredLines(str(path), str(name), tuple(zip(flat[::2], flat[1::2], strict=True)))
            for path, name, flat in tests))
    except (TypeError, ValueError):
        return None
