"""retrieval/impact/coverage_tests: the tests that ran an edited definition, first in ``changed``.

The data is real: coverage.py runs the tiny package's two test files with per-test
contexts, ``repoctx`` indexes it, and an edit asks which tests to run.
"""

import re

import jsonschema
import pytest

from repoctx import open_store
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.retrieval import EXPORT_NAME, Workspace
from repoctx.retrieval.impact.changed import changed
from repoctx.retrieval.impact.coverage_tests import coverage_tests
from repoctx.tools.outputs import CHANGED
from tests.reconcile.coverage_repo import make_repo, measure

NONE = {"status": "none", "measuredAt": None, "staleFiles": []}


@pytest.fixture
def ws(tmp_path):
    root = make_repo(tmp_path / "repo")
    measure(root)
    store = open_store(root, repo_id="demo", replica_id="r1")
    reconcile_pass(store, root, PassOptions(workers=1))
    yield Workspace(store, root.resolve(), store.path / EXPORT_NAME)
    store.close()


ADD_OLD, ADD_NEW = "return a + b", "total = a + b\n    return total"
"""An edit of ``add`` that moves its span (a body digest is another helper's)."""


def edit(ws, old, new):
    calc = ws.root / "pkg/calc.py"
    calc.write_text(calc.read_text().replace(old, new))


def coverage_entries(got):
    return [t for t in got["tests"] if t.get("reason") == "coverage"]


def test_an_edited_function_lists_the_test_that_ran_it_first(ws):
    edit(ws, "total = 0", "total = 0\n    total += 0")
    got = changed(ws)
    assert ("pkg.calc.mul", "modified") in {(s["fqName"], s["change"])
                                            for s in got["changedSymbols"]}
    first = got["tests"][0]
    assert {k: first[k] for k in ("path", "names", "reason", "distance")} == {
        "path": "tests/test_mul.py", "names": ["tests.test_mul.TestMul.test_mul"],
        "reason": "coverage", "distance": 0}
    assert 0 <= first["ageSeconds"] < 600
    assert [t["path"] for t in coverage_entries(got)] == ["tests/test_mul.py"]
    assert got["coverage"]["status"] == "fresh" and got["coverage"]["staleFiles"] == []
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", got["coverage"]["measuredAt"])
    jsonschema.validate(got, CHANGED)


def test_a_function_every_test_ran_lists_both_files(ws):
    edit(ws, ADD_OLD, ADD_NEW)
    got = changed(ws)
    assert sorted((t["path"], t["names"]) for t in coverage_entries(got)) == [
        ("tests/test_add.py", ["tests.test_add.test_add"]),
        ("tests/test_mul.py", ["tests.test_mul.TestMul.test_mul"])]
    assert got["tests"][:2] == coverage_entries(got)  # before the static evidence


def test_a_removed_function_is_looked_up_at_its_indexed_lines(ws):
    edit(ws, "def mul(a, b):\n    total = 0\n    for _ in range(b):\n"
             "        total = add(total, a)\n    return total\n", "")
    got = changed(ws)
    assert ("pkg.calc.mul", "removed") in {(s["fqName"], s["change"])
                                           for s in got["changedSymbols"]}
    assert [t["path"] for t in coverage_entries(got)] == ["tests/test_mul.py"]


def test_data_older_than_the_index_is_stale_and_gives_no_test(ws):
    edit(ws, ADD_OLD, ADD_NEW)
    reconcile_pass(ws.store, ws.root, PassOptions(workers=1))  # re-indexed, not re-measured
    edit(ws, ADD_NEW, ADD_OLD)
    got = changed(ws)
    assert coverage_entries(got) == []
    assert got["coverage"]["status"] == "stale"
    assert got["coverage"]["staleFiles"] == ["pkg/calc.py"]
    jsonschema.validate(got, CHANGED)


def test_fresh_and_stale_files_together_are_partial(ws):
    edit(ws, ADD_OLD, ADD_NEW)
    reconcile_pass(ws.store, ws.root, PassOptions(workers=1))
    entries, status = coverage_tests(ws, [("pkg/calc.py", 1, 2), ("tests/test_add.py", 4, 5)])
    assert status["status"] == "partial" and status["staleFiles"] == ["pkg/calc.py"]
    assert [e["path"] for e in entries] == ["tests/test_add.py"]  # it ran its own lines


def test_unmeasured_files_and_no_data(ws, tmp_path):
    entries, status = coverage_tests(ws, [("pkg/nowhere.py", 1, 9)])
    assert entries == [] and status["status"] == "fresh"
    assert coverage_tests(ws, [("pkg/calc.py", 11, 12)])[0] == []  # unused(): no test ran it
    bare = make_repo(tmp_path / "bare")
    with open_store(bare, repo_id="bare", replica_id="r1") as store:
        reconcile_pass(store, bare, PassOptions(workers=1))
        plain = Workspace(store, bare.resolve(), store.path / EXPORT_NAME)
        assert coverage_tests(plain, [("pkg/calc.py", 1, 9)]) == ([], NONE)
