"""reconcile/coverage_ingest: real coverage.py data into the coverage tree, at the end of a pass.

Bad data (random bytes, a foreign SQLite file, no per-test contexts, too big, too slow)
is a warning in the report, and the pass completes.
"""

import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from repoctx import open_store
from repoctx.reconcile import PassOptions, coverage_ingest, coverage_marker_key, reconcile_pass
from repoctx.reconcile import coverage_data as cd
from repoctx.reconcile.nodes.coverage_record import CoveredLines, coverage_of
from repoctx.reconcile.nodes.file_node import file_node
from tests.reconcile.coverage_repo import make_repo, measure, measure_as_pytest_cov


def index(store, root, **options):
    return reconcile_pass(store, root, PassOptions(workers=1, **options))


def held(store, path):
    return coverage_of(store.get(store.key("coverage", path)))


@pytest.fixture
def repo(tmp_path):
    root = make_repo(tmp_path / "repo")
    measure(root)
    store = open_store(root, repo_id="demo", replica_id="r1")
    yield root, store
    store.close()


def test_a_real_run_is_ingested_per_file_and_per_test(repo):
    root, store = repo
    report = index(store, root)
    assert report.coverage == {"files": 5, "contexts": 2, "stale": 0, "unmapped": 0,
                               "warnings": [], "ingested": True}
    assert report.as_json()["coverage"] == report.coverage and "coverage" in report.seconds
    calc = held(store, "pkg/calc.py")
    node = file_node("pkg/calc.py", store.get(store.key("file", "pkg/calc.py")))
    assert calc.stale is None and calc.digest == node.digest  # the store's digest
    assert calc.tests == (CoveredLines("tests/test_add.py", "test_add", ((2, 2),)),
                          CoveredLines("tests/test_mul.py", "TestMul.test_mul", ((2, 2), (6, 9))))
    assert calc.measured_ns == (root / ".coverage").stat().st_mtime_ns
    assert held(store, "pkg/__init__.py").tests == ()  # measured, but no test ran a line
    assert "coverage: 5 files, 2 tests, 0 stale" in report.text()


def test_the_same_data_file_is_not_read_again(repo, monkeypatch):
    root, store = repo
    index(store, root)
    again = index(store, root)
    assert again.coverage["ingested"] is False and again.coverage["files"] == 5
    os.utime(root / ".coverage", ns=(1, 2_000_000_000_000_000_000))  # touched, same bytes
    monkeypatch.setattr(coverage_ingest, "_ingest", None)  # would fail if called
    touched = index(store, root)
    assert touched.coverage["ingested"] is False and touched.coverage["files"] == 5
    assert store.trees.get_local(coverage_marker_key(store))["mtimeNs"] == 2 * 10**18


def test_files_no_longer_measured_are_retired_and_a_removed_data_file_retires_all(repo):
    root, store = repo
    index(store, root)
    assert held(store, "tests/test_add.py") is not None
    (root / ".coveragerc").write_text("[run]\ndynamic_context = test_function\nsource = pkg\n")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([sys.executable, "-m", "coverage", "run", "-m", "pytest", "-q", "-p",
                    "no:cacheprovider", "tests"], cwd=root, env=env, check=True,
                   capture_output=True)
    report = index(store, root)
    assert report.coverage["files"] == 2 and report.coverage["ingested"]
    assert held(store, "tests/test_add.py") is None and held(store, "pkg/calc.py") is not None
    (root / ".coverage").unlink()
    gone = index(store, root)
    assert gone.coverage == {"files": 0, "contexts": 0, "stale": 0, "unmapped": 0,
                             "warnings": [], "ingested": True}
    assert held(store, "pkg/calc.py") is None
    assert store.trees.get_local(coverage_marker_key(store)) is None
    assert index(store, root).coverage is None


def test_a_source_newer_than_the_data_is_stale(repo):
    root, store = repo
    calc = root / "pkg/calc.py"
    calc.write_text(calc.read_text() + "\n\ndef later():\n    return 2\n")
    report = index(store, root)
    assert report.coverage["stale"] == 1
    assert held(store, "pkg/calc.py").stale == "the file is newer than the coverage data"
    assert held(store, "tests/test_add.py").stale is None


def test_lines_past_the_end_of_the_file_are_stale(repo):
    root, store = repo
    calc = root / "pkg/calc.py"
    calc.write_text("def add(a, b):\n    return a + b\n")  # data of another commit
    old = (root / ".coverage").stat().st_mtime_ns - 10**9
    os.utime(calc, ns=(old, old))
    report = index(store, root)
    assert report.coverage["stale"] == 1
    assert "names line 9, past the end" in held(store, "pkg/calc.py").stale


def test_pytest_cov_contexts_from_another_checkout_map_onto_this_one(tmp_path):
    root = make_repo(tmp_path / "repo")
    elsewhere = make_repo(tmp_path / "ci" / "checkout")
    measure_as_pytest_cov(root, where=elsewhere)
    with open_store(root, repo_id="demo", replica_id="r1") as store:
        report = index(store, root)
        assert report.coverage["files"] == 2 and report.coverage["contexts"] == 2
        assert [(t.path, t.name) for t in held(store, "pkg/calc.py").tests] == [
            ("tests/test_add.py", "test_add"), ("tests/test_mul.py", "TestMul.test_mul")]


def test_an_explicit_data_file_and_no_coverage(repo, tmp_path):
    root, store = repo
    moved = tmp_path / "elsewhere.coverage"
    shutil.move(root / ".coverage", moved)
    assert index(store, root, coverage=None).coverage is None
    assert index(store, root).coverage is None  # no PATH/.coverage
    assert index(store, root, coverage=moved).coverage["files"] == 5


@pytest.mark.parametrize("bad", ["random", "foreign", "no contexts", "huge", "slow"])
def test_bad_data_is_a_warning_and_the_pass_completes(repo, bad, monkeypatch):
    root, store = repo
    data = root / ".coverage"
    index(store, root)  # good data first (its records stay: true of unchanged files)
    if bad == "random":
        data.write_bytes(os.urandom(8192))
    elif bad == "foreign":
        data.unlink()
        with sqlite3.connect(data) as db:
            db.execute("CREATE TABLE t(x)")
        db.close()
    elif bad == "no contexts":
        (root / ".coveragerc").write_text("[run]\n")
        measure(root)
    elif bad == "huge":
        data.write_bytes(data.read_bytes() + b"\0")
        monkeypatch.setattr(cd, "MAX_DATA_BYTES", 1000)
    else:
        with sqlite3.connect(data) as db:
            db.execute("CREATE TABLE extra(x)")  # other bytes: read again
        db.close()
        monkeypatch.setattr(coverage_ingest, "MAX_SECONDS", -1.0)
    (root / "pkg/calc.py").write_text((root / "pkg/calc.py").read_text() + "# edit\n")
    report = index(store, root)
    assert report.changed >= 1  # the pass itself went on
    warning = {"random": "not readable as coverage.py data", "foreign": "coverage.py's tables",
               "no contexts": "no per-test contexts", "huge": "over the",
               "slow": "took over"}[bad]
    assert any(w.startswith("coverage: ") and warning in w for w in report.warnings)
    assert any(warning in w for w in report.coverage["warnings"])
    again = index(store, root)  # not read again until it changes; the warning is kept
    assert again.coverage["ingested"] is False
    assert not any(w.startswith("coverage: ") for w in again.warnings)
    assert any(warning in w for w in again.coverage["warnings"])
