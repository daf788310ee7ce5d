from __future__ import annotations

import pytest

from repoctx.extract import Symbol, is_test_name, is_test_path, is_test_symbol


@pytest.mark.parametrize(("path", "expected"), [
    ("tests/test_models.py", True), ("pkg/test_models.py", True),
    ("pkg/models_test.py", True), ("conftest.py", True), ("pkg/sub/conftest.py", True),
    ("tests/helpers.py", True), ("pkg/test/fixtures/data.json", True),
    ("pkg/models.py", False), ("pkg/testing.py", False), ("pkg/latest.py", False),
    ("contest.py", False), ("testdata/x.py", False), ("pkg/tests.py", False),
    ("tests\\unit\\x.py", True),
])
def test_is_test_path(path: str, expected: bool) -> None:
    assert is_test_path(path) is expected


@pytest.mark.parametrize(("name", "kind", "expected"), [
    ("TestLedger", "class", True), ("Test", "class", True), ("Test_Ledger", "class", True),
    ("Test2", "class", True), ("LedgerTest", "class", True), ("LedgerTests", "class", True),
    ("Testimony", "class", False), ("Ledger", "class", False), ("Contest", "class", False),
    ("test_total", "method", True), ("test_total", "function", True),
    ("testTotal", "function", False), ("test_total", "variable", False),
    ("TestLedger", "function", False),
])
def test_is_test_name(name: str, kind: str, expected: bool) -> None:
    assert is_test_name(name, kind) is expected


def test_is_test_symbol_needs_a_test_name_in_a_test_file() -> None:
    test_class = Symbol("t.TestA", "TestA", "class", "class TestA", "", 1, 2)
    helper = Symbol("t.helper", "helper", "function", "def helper()", "", 1, 2)
    assert is_test_symbol(test_class, "tests/test_a.py")
    assert not is_test_symbol(test_class, "pkg/a.py")
    assert not is_test_symbol(helper, "tests/test_a.py")


def test_sample_test_file(sample_sources) -> None:
    from repoctx.extract import extract

    path = "tests/test_ledger.py"
    found = {s.name for s in extract(path, dict(sample_sources)[path]) if is_test_symbol(s, path)}
    assert found == {"TestLedger", "test_get", "LedgerTests", "test_total", "test_post"}
