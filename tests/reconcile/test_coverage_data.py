"""reconcile/coverage_data: the data file read through a copy, bad files refused cleanly."""

import os
import sqlite3

import pytest

from repoctx.errors import CoverageDataError
from repoctx.reconcile import coverage_data as cd
from tests.reconcile.coverage_repo import make_repo, measure_as_pytest_cov


def test_real_data_is_read_and_the_file_left_as_it_was(tmp_path):
    data = measure_as_pytest_cov(make_repo(tmp_path))
    before = data.read_bytes()
    with cd.coverage_data(data) as read:
        assert {os.path.basename(f) for f in read.measured_files()} >= {"calc.py"}
        assert "tests/test_add.py::test_add|run" in read.measured_contexts()
    assert data.read_bytes() == before
    stat = cd.stat_of(data)
    assert stat == (len(before), data.stat().st_mtime_ns)
    assert cd.stamp_of(data, stat).sha256 == cd.stamp_of(data, stat).sha256 != ""


def test_random_bytes_are_refused(tmp_path):
    bad = tmp_path / ".coverage"
    bad.write_bytes(os.urandom(4096))
    with pytest.raises(CoverageDataError, match="not readable as coverage.py data"), \
            cd.coverage_data(bad):
        pass


def test_a_foreign_sqlite_file_is_refused_and_not_written_to(tmp_path):
    foreign = tmp_path / ".coverage"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE notes(x)")
    db.close()
    before = foreign.read_bytes()
    with pytest.raises(CoverageDataError, match="without coverage.py's tables"), \
            cd.coverage_data(foreign):
        pass
    assert foreign.read_bytes() == before  # coverage.py would have added its schema
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    with pytest.raises(CoverageDataError), cd.coverage_data(empty):
        pass
    assert empty.read_bytes() == b""


def test_a_missing_file_has_no_stat_and_a_huge_one_no_stamp(tmp_path, monkeypatch):
    assert cd.stat_of(tmp_path / "missing") is None
    big = tmp_path / ".coverage"
    big.write_bytes(b"x" * 100)
    monkeypatch.setattr(cd, "MAX_DATA_BYTES", 10)
    with pytest.raises(CoverageDataError, match="over the"):
        cd.stamp_of(big, cd.stat_of(big))


def test_an_unreadable_file_is_a_coverage_error(tmp_path):
    folder = tmp_path / "dir.coverage"
    folder.mkdir()
    with pytest.raises(CoverageDataError):
        cd.stamp_of(folder, (0, 0))
