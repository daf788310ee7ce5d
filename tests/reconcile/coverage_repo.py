"""A tiny package with two test files, measured for real by coverage.py.

``measure`` runs ``coverage run -m pytest`` with ``dynamic_context = test_function``
(contexts ``tests.test_add.test_add``); ``measure_as_pytest_cov`` records through the
coverage API with pytest-cov's context names (``tests/test_mul.py::TestMul::test_mul|run``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CALC = '''\
def add(a, b):
    return a + b


def mul(a, b):
    total = 0
    for _ in range(b):
        total = add(total, a)
    return total


def unused():
    return None
'''
TEST_ADD = '''\
from pkg.calc import add


def test_add():
    assert add(1, 2) == 3
'''
TEST_MUL = '''\
from pkg.calc import mul


class TestMul:
    def test_mul(self):
        assert mul(2, 3) == 6
'''
RC = "[run]\ndynamic_context = test_function\n"


def make_repo(root: Path) -> Path:
    """The package and its tests under ``root`` (returned)."""
    files = {"pkg/__init__.py": "", "pkg/calc.py": CALC, "tests/__init__.py": "",
             "tests/test_add.py": TEST_ADD, "tests/test_mul.py": TEST_MUL,
             ".coveragerc": RC}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def measure(root: Path, data_file: str = ".coverage") -> Path:
    """Run the suite under coverage.py with per-test contexts; the data file's path."""
    env = {**os.environ, "COVERAGE_FILE": data_file, "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([sys.executable, "-m", "coverage", "run", "--rcfile=.coveragerc",
                    "--source=pkg,tests", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    "tests"], cwd=root, env=env, check=True, capture_output=True)
    return root / data_file


def measure_as_pytest_cov(root: Path, where: Path | None = None) -> Path:
    """Record the same suite through the coverage API, naming contexts as pytest-cov does;
    ``where`` is the folder the sources are measured at (another checkout: its copies)."""
    import coverage

    where = where or root
    sys.path.insert(0, str(where))
    try:
        cov = coverage.Coverage(data_file=str(root / ".coverage"), source=[str(where / "pkg")])
        cov.start()
        try:
            import pkg.calc

            cov.switch_context("tests/test_add.py::test_add|run")
            assert pkg.calc.add(1, 2) == 3
            cov.switch_context("tests/test_mul.py::TestMul::test_mul[2-3]|run")
            assert pkg.calc.mul(2, 3) == 6
        finally:
            cov.stop()
        cov.save()
    finally:
        sys.path.remove(str(where))
        for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[name]
    return root / ".coverage"
