"""A tiny package with two test files, measured for real by coverage.py.

``measure`` runs ``coverage run -m pytest`` with ``dynamic_context = test_function``
(contexts ``tests.test_add.test_add``), once per distinct tree in a session;
``measure_as_pytest_cov`` records through the coverage API with pytest-cov's context
names (``tests/test_mul.py::TestMul::test_mul|run``).
"""

from __future__ import annotations

import atexit
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
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


_MEASURED: dict[tuple[str, tuple[tuple[str, bytes], ...]], Path] = {}
"""Trees measured this session, by data file name and the files' bytes: the measured
copy. Coverage.py runs a suite in seconds; the same tree runs it once."""


def measure(root: Path, data_file: str = ".coverage") -> Path:
    """Run the suite under coverage.py with per-test contexts; the data file's path.

    The suite runs in a copy of ``root`` the first time its files are seen; the data file
    then lands at ``root`` with its measured paths moved there, as if run in place."""
    files = tuple(sorted((str(p.relative_to(root)), p.read_bytes()) for p in root.rglob("*")
                         if p.is_file() and not _is_data(p.name)))
    key = (data_file, files)
    if key not in _MEASURED:
        tree = Path(tempfile.mkdtemp(prefix="measured-")).resolve() / "repo"
        atexit.register(shutil.rmtree, tree.parent, True)
        shutil.copytree(root, tree, ignore=lambda _, names: [n for n in names if _is_data(n)])
        env = {**os.environ, "COVERAGE_FILE": data_file, "PYTHONDONTWRITEBYTECODE": "1"}
        subprocess.run([sys.executable, "-m", "coverage", "run", "--rcfile=.coveragerc",
                        "--source=pkg,tests", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "tests"], cwd=tree, env=env, check=True, capture_output=True)
        _MEASURED[key] = tree
    tree = _MEASURED[key]
    target = root / data_file
    shutil.copyfile(tree / data_file, target)
    with sqlite3.connect(target) as db:
        db.execute("UPDATE file SET path = ? || substr(path, ?)",
                   (str(root.resolve()), len(str(tree)) + 1))
    db.close()
    return target


def _is_data(name: str) -> bool:
    """True for a coverage data file's name (not the ``.coveragerc`` beside it)."""
    return name.startswith(".coverage") and name != ".coveragerc"


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
