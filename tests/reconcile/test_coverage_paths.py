"""reconcile/coverage_paths: measured paths and test contexts onto indexed files."""

from pathlib import Path

from repoctx.reconcile.coverage_paths import PathMap

INDEXED = ["src/pkg/calc.py", "src/pkg/__init__.py", "setup.py", "tests/test_calc.py",
           "tests/unit/test_calc.py", "a/util.py", "b/util.py", "vendor/pkg/mod.py",
           "pkg/mod.py"]


def paths(root=Path("/work/repo")):
    return PathMap(INDEXED, root)


def test_a_file_of_this_checkout_maps_to_itself():
    assert paths().source("/work/repo/src/pkg/calc.py") == "src/pkg/calc.py"
    assert paths().source("/work/repo/setup.py") == "setup.py"


def test_another_checkout_maps_by_the_longest_suffix():
    assert paths().source("/home/runner/work/x/x/src/pkg/calc.py") == "src/pkg/calc.py"
    assert paths().source("C:\\ci\\x\\src\\pkg\\calc.py") == "src/pkg/calc.py"
    assert paths().source("/ci/x/setup.py") == "setup.py"  # the suffix is the whole path
    # the indexed file that is the suffix wins over a longer one ending the same way
    assert paths().source("/ci/x/pkg/mod.py") == "pkg/mod.py"


def test_an_installed_copy_maps_only_by_a_unique_suffix_of_two_segments():
    venv = "/work/repo/.tox/py311/lib/python3.11/site-packages/"
    assert paths().source(venv + "pkg/calc.py") == "src/pkg/calc.py"
    assert paths().source(venv + "setup.py") is None  # a bare file name says nothing
    assert paths().source(venv + "util.py") is None


def test_ambiguous_short_or_unknown_paths_are_unmapped():
    assert paths().source("/elsewhere/util.py") is None  # a/util.py or b/util.py
    assert paths().source("/elsewhere/calc.py") is None  # one segment, not the whole path
    assert paths().source("/elsewhere/other.py") is None
    assert paths().source("") is None and paths().source("/") is None


def test_pytest_cov_contexts():
    assert paths().test("tests/test_calc.py::TestAdd::test_add|run") == (
        "tests/test_calc.py", "TestAdd.test_add")
    assert paths().test("tests/test_calc.py::test_mul[2-3]|setup") == (
        "tests/test_calc.py", "test_mul")
    assert paths().test("tests/test_calc.py") is None
    assert paths().test("tests/test_gone.py::test_x|run") is None


def test_dynamic_context_test_function_contexts():
    assert paths().test("tests.test_calc.TestAdd.test_add") == ("tests/test_calc.py",
                                                                "TestAdd.test_add")
    assert paths().test("tests.unit.test_calc.test_mul") == ("tests/unit/test_calc.py",
                                                             "test_mul")
    assert paths().test("tests.test_calc") is None  # a module, no test in it
    assert paths().test("unknown.module.test_x") is None
    assert paths().test("") is None
