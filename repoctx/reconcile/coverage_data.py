"""reconcile/coverage_data — a coverage.py data file, read through a private copy.

coverage.py's reader writes its schema into whatever file it opens (an empty file, a
foreign SQLite database), so it never opens the user's file: a copy of at most
``MAX_DATA_BYTES`` is taken into a temporary folder, checked to hold coverage.py's
schema, and read there. Every failure of the file, of SQLite or of coverage.py is one
``CoverageDataError`` naming the file (``coverage_errors``). SQLite and coverage.py are
imported only to read a file: a pass with no new data file needs neither.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from repoctx.errors import CoverageDataError

if TYPE_CHECKING:
    from coverage import CoverageData

MAX_DATA_BYTES = 256 << 20
"""Larger data files are not read: a suite that big is measured per run, not per test."""


@dataclass(frozen=True, slots=True)
class DataStamp:
    """What identifies one version of a data file."""

    size: int
    mtime_ns: int
    sha256: str


def stat_of(path: Path) -> tuple[int, int] | None:
    """``(size, mtime_ns)`` of the data file, or None when there is none."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CoverageDataError(f"{path}: cannot read the coverage data ({exc})") from exc
    return st.st_size, st.st_mtime_ns


def stamp_of(path: Path, stat: tuple[int, int]) -> DataStamp:
    """The data file's stamp (its digest read once; refused above ``MAX_DATA_BYTES``)."""
    size, mtime_ns = stat
    if size > MAX_DATA_BYTES:
        raise CoverageDataError(f"{path}: coverage data of {size} bytes is over the "
                                f"{MAX_DATA_BYTES >> 20} MiB read limit; not read")
    digest = hashlib.sha256()
    with coverage_errors(path), open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return DataStamp(size, mtime_ns, digest.hexdigest())


@contextmanager
def coverage_errors(path: Path) -> Iterator[None]:
    """Translate what reading the data file at ``path`` raises into ``CoverageDataError``."""
    import sqlite3

    from coverage.exceptions import CoverageException

    try:
        yield
    except (CoverageException, sqlite3.Error, OSError) as exc:
        raise CoverageDataError(f"{path}: not readable as coverage.py data "
                                f"({type(exc).__name__}: {exc})") from exc


@contextmanager
def coverage_data(path: Path) -> Iterator[CoverageData]:
    """The data file, opened read-only on a private copy (see the module docstring); what
    the block reads from it is translated by ``coverage_errors`` too."""
    import shutil
    import tempfile

    from coverage import CoverageData

    with coverage_errors(path), tempfile.TemporaryDirectory(prefix="repoctx-cov-") as folder:
        copy = Path(folder) / "data"
        shutil.copyfile(path, copy)
        _check_schema(path, copy)
        data = CoverageData(basename=str(copy))
        try:
            data.read()
            yield data
        finally:
            data.close(force=True)


def _check_schema(path: Path, copy: Path) -> None:
    """Refuse a copy that is not coverage.py data (before coverage.py writes into it)."""
    import sqlite3

    with closing(sqlite3.connect(f"file:{copy}?mode=ro", uri=True)) as db:
        found = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                           "name = 'coverage_schema'").fetchone()
    if found is None:
        raise CoverageDataError(f"{path}: an SQLite file without coverage.py's tables; "
                                "not coverage data")
