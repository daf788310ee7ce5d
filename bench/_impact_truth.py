"""The ground truth of ``bench/impact.py``: which test files really execute each function.

Each project's sdist (tests included) is unpacked once (``_corpus``); a venv of its own
gets pytest, pytest-cov and the project's test dependencies (the project itself is not
installed: its tree is put on ``PYTHONPATH``, so coverage measures the tree's files). The
suite runs under ``pytest --cov-context=test`` in a copy of the tree, and every function
or method of the library (not of its tests) gets the test files whose contexts executed a
line of its body (lines of a nested definition belong to that definition alone).
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _impact_ts
from _corpus import CACHE, Sdist, source

from repoctx.extract import extract

WORK = CACHE / "impact"
SHARED = Path(os.environ.get("REPOCTX_IMPACT_DATA", "/work/impactdata"))
"""Where the truth is also published for other work (one folder per project)."""
_DUMP = Path(__file__).resolve().parent / "_impact_dump.py"
_TOOLS = ("pytest==8.3.3", "pytest-cov==5.0.0", "coverage==7.6.1")


@dataclass(frozen=True)
class Project:
    """A released Python project whose sdist carries its test suite."""

    name: str
    version: str
    shape: str
    code: tuple[str, ...]
    """The library's files or folders, relative to the sdist root."""
    tests: tuple[str, ...]
    pythonpath: str = "."
    deps: tuple[str, ...] = ()
    language: str = "python"
    """``python`` (a PyPI sdist, run by pytest) or ``typescript`` (an npm tarball, vitest)."""
    conditions: tuple[str, ...] = ()
    """Package export conditions that make the tests import the sources (TypeScript)."""

    @property
    def key(self) -> str:
        return f"{self.name}-{self.version}"

    def is_library(self, path: str) -> bool:
        """Whether the relative ``path`` is library code (not a test)."""
        def under(roots: tuple[str, ...]) -> bool:
            return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)
        suffix = ".py" if self.language == "python" else ".ts"
        return (path.endswith(suffix) and not path.endswith(".d.ts") and under(self.code)
                and not under(self.tests))


PROJECTS = (
    Project("click", "8.1.7", "src layout, tests/ beside src/", ("src/click",), ("tests",),
            pythonpath="src"),
    Project("boltons", "24.0.0", "flat package, top-level tests/", ("boltons",), ("tests",)),
    Project("parse", "1.20.2", "single module, top-level tests/", ("parse.py",), ("tests",)),
    Project("toolz", "0.12.1", "package with its tests inside it", ("toolz", "tlz"),
            ("toolz/tests",)),
    Project("zod", "3.25.76", "TypeScript, npm tarball, *.test.ts beside the sources",
            ("src/v3",), ("src/v3/tests",), language="typescript",
            conditions=("@zod/source",)),
)


@dataclass(frozen=True)
class Function:
    """A function or method of the library and the test files that executed its body."""

    path: str
    qualname: str
    kind: str
    """``function`` (module level), ``method`` (in a class) or ``nested`` (in a function)."""
    line: int
    end_line: int
    fq_name: str | None
    tests: tuple[str, ...]
    test_names: dict[str, list[str]]

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "qualname": self.qualname, "kind": self.kind,
                "line": self.line, "endLine": self.end_line, "fqName": self.fq_name,
                "tests": list(self.tests), "testNames": self.test_names}


def _log(message: str) -> None:
    print(f"[impact] {message}", file=sys.stderr, flush=True)


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None,
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          check=False)


def venv_python(project: Project) -> Path:
    """The project's own venv (made once) with the test tools and its test deps."""
    folder = WORK / project.key / "venv"
    python = folder / "bin" / "python"
    if (folder / ".ready").exists():
        return python
    _log(f"{project.key}: making its venv")
    shutil.rmtree(folder, ignore_errors=True)
    _check(_run([sys.executable, "-m", "venv", str(folder)], WORK), "python -m venv")
    _check(_run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                 *_TOOLS, *project.deps], WORK), "pip install")
    (folder / ".ready").touch()
    return python


def _check(done: subprocess.CompletedProcess[str], what: str) -> None:
    if done.returncode != 0:
        raise SystemExit(f"{what} failed:\n{(done.stderr or done.stdout)[-2000:]}")


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def fresh_tree(project: Project, name: str) -> Path:
    """A copy of the pristine sdist tree (bytes and mtimes kept) under the work folder."""
    tree = WORK / project.key / name
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(_pristine(project), tree, symlinks=True)
    return tree


def _pristine(project: Project) -> Path:
    if project.language == "typescript":
        return _impact_ts.pristine(project.name, project.version, WORK / project.key)
    return source(Sdist(project.name, project.version))


def run_suite(project: Project, tree: Path) -> Path:
    """Run the suite in ``tree`` under per-test coverage contexts; the ``.coverage`` file.
    Whatever else the run leaves in the tree is removed, so the tree stays the sdist's."""
    before = _files(tree)
    python = venv_python(project)
    env = {**os.environ, "PYTHONPATH": str(tree / project.pythonpath),
           "PYTHONDONTWRITEBYTECODE": "1", "COVERAGE_FILE": str(tree / ".coverage")}
    rc = WORK / project.key / "coveragerc"
    rc.write_text("[run]\nbranch = False\n")
    command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
               "--rootdir", str(tree), "--cov-config", str(rc), "--cov-context=test",
               "--cov-report=", f"--cov={tree}",
               *project.tests]
    _log(f"{project.key}: running its suite under coverage")
    done = _run(command, tree, env)
    (WORK / project.key / "suite.log").write_text(done.stdout + done.stderr)
    data = tree / ".coverage"
    if not data.exists():
        raise SystemExit(f"{project.key}: the suite left no coverage data:\n"
                         f"{(done.stdout + done.stderr)[-2000:]}")
    for extra in _files(tree) - before - {data}:
        extra.unlink()
    _log(f"{project.key}: suite exit {done.returncode}: {done.stdout.strip().splitlines()[-1:]}")
    return data


def _contexts(project: Project, data: Path) -> dict[str, dict[int, list[str]]]:
    """Relative path -> line -> contexts, for the library's files."""
    done = _run([str(venv_python(project)), str(_DUMP), str(data)], data.parent)
    _check(done, "reading the coverage data")
    root = data.parent.resolve()
    out = {}
    for name, lines in json.loads(done.stdout).items():
        rel = Path(name).resolve().relative_to(root).as_posix()
        if project.is_library(rel):
            out[rel] = {int(n): ctxs for n, ctxs in lines.items()}
    return out


def test_of(context: str) -> tuple[str, str] | None:
    """``(test file, test name)`` of a pytest-cov context (``tests/t.py::T::test_a|run``),
    None for a context that is not a test's (a doctest, module import)."""
    node = context.rsplit("|", 1)[0]
    path, sep, name = node.partition("::")
    return (path, name) if sep and path.endswith(".py") else None


def _definitions(tree: ast.Module) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str,
                                                 str]]:
    """``(node, qualname, kind)`` of every function of a module, in source order."""
    found = []

    def visit(node: ast.AST, prefix: str, inside: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                kind = {"module": "function", "class": "method"}.get(inside, "nested")
                found.append((child, prefix + child.name, kind))
                visit(child, f"{prefix}{child.name}.", "function")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.", "class")
            else:
                visit(child, prefix, inside)
    visit(tree, "", "module")
    return found


def body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """The lines of a function's body that are its own (not a nested definition's body)."""
    lines = set(range(node.body[0].lineno, (node.end_lineno or node.lineno) + 1))
    for inner in ast.walk(node):
        if inner is not node and isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef
                                            | ast.ClassDef):
            lines -= set(range(inner.body[0].lineno, (inner.end_lineno or inner.lineno) + 1))
    return lines


def _fq_names(path: str, text: str) -> dict[int, str]:
    """Def line -> repoctx's name for the function declared there."""
    return {s.start_line: s.fq_name for s in extract(path, text)
            if s.kind in ("function", "method")}


def file_functions(path: str, text: str, lines: dict[int, list[str]]) -> list[Function]:
    """The functions of one library file with the tests that executed their bodies."""
    names = _fq_names(path, text)
    out = []
    for node, qualname, kind in _definitions(ast.parse(text)):
        hits: dict[str, set[str]] = defaultdict(set)
        for line in body_lines(node):
            for test in filter(None, map(test_of, lines.get(line, ()))):
                hits[test[0]].add(test[1])
        out.append(Function(path, qualname, kind, node.lineno, node.end_lineno or node.lineno,
                            names.get(node.lineno), tuple(sorted(hits)),
                            {t: sorted(n) for t, n in sorted(hits.items())}))
    return out


def truth(project: Project, tree: Path, data: Path) -> dict[str, Any]:
    """The truth of one project as published (``functions`` with their test files)."""
    contexts = _contexts(project, data)
    functions = []
    for path in sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.py")):
        if project.is_library(path):
            text = (tree / path).read_text(encoding="utf-8")
            functions += file_functions(path, text, contexts.get(path, {}))
    tests = sorted({t for f in functions for t in f.tests})
    return {"project": project.name, "version": project.version, "shape": project.shape,
            "root": str(tree), "testFiles": tests,
            "functions": [f.as_json() for f in functions]}


def _ts_truth(project: Project, tree: Path) -> dict[str, Any]:
    """The truth of a TypeScript project: each test file run alone under V8 coverage."""
    folder = WORK / project.key
    _log(f"{project.key}: running its test files one by one under coverage")
    tests = sorted(p.relative_to(tree).as_posix() for t in project.tests
                   for p in (tree / t).rglob("*.test.ts"))
    hits = {t: _impact_ts.covered_lines(folder, tree, t, project.code[0], project.conditions)
            for t in tests}
    functions = []
    for path in sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.ts")):
        if project.is_library(path):
            for function in _impact_ts.definitions(path, (tree / path).read_text("utf-8")):
                own = set(function["own"])
                function["tests"] = [t for t in tests if own & hits[t].get(path, set())]
                functions.append(function)
    return {"project": project.name, "version": project.version, "shape": project.shape,
            "root": str(tree), "testFiles": sorted({t for f in functions for t in f["tests"]}),
            "functions": functions}


def load_or_build(project: Project) -> tuple[dict[str, Any], Path]:
    """The project's truth (cached in the work folder) and the tree it ran in (holding its
    ``.coverage``); published under ``SHARED/<project>/truth.json`` too."""
    cached = WORK / project.key / "truth.json"
    tree = WORK / project.key / "tree-cov"
    if cached.exists() and tree.is_dir():
        found = json.loads(cached.read_text())
    elif project.language == "typescript":
        tree = fresh_tree(project, "tree-cov")
        found = _ts_truth(project, tree)
        cached.write_text(json.dumps(found, indent=1))
    else:
        tree = fresh_tree(project, "tree-cov")
        found = truth(project, tree, run_suite(project, tree))
        cached.write_text(json.dumps(found, indent=1))
    published = SHARED / project.name / "truth.json"
    published.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(cached, published)
    if (tree / ".coverage").exists():
        shutil.copyfile(tree / ".coverage", published.with_name(".coverage"))
    return found, tree
