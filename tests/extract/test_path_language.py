from __future__ import annotations

import pytest

from repoctx.extract import language_of


@pytest.mark.parametrize(("path", "language"), [
    ("pkg/mod.py", "python"), ("pkg/mod.pyi", "python"), ("web/app.JS", "javascript"),
    ("web/app.tsx", "typescript"), ("cmd/main.go", "go"), ("src/lib.rs", "rust"),
    ("A.java", "java"), ("x.c", "c"), ("x.h", "c"), ("x.hpp", "cpp"), ("x.cc", "cpp"),
    ("X.cs", "csharp"), ("x.rb", "ruby"), ("x.php", "php"), ("run.sh", "shell"),
    ("README.md", "markdown"), ("a.json", "json"), ("a.yml", "yaml"), ("a.yaml", "yaml"),
    ("pyproject.toml", "toml"), ("setup.cfg", "ini"), ("tox.ini", "ini"), ("docs/i.rst", "rst"),
    ("i.html", "html"), ("s.css", "css"), ("q.sql", "sql"), ("notes.txt", "text"),
    ("Makefile", "make"), ("docker/Dockerfile", "dockerfile"), ("CMakeLists.txt", "cmake"),
    ("Gemfile", "ruby"), ("sub\\win\\path.py", "python"), ("LICENSE", "text"),
])
def test_known_languages(path: str, language: str) -> None:
    assert language_of(path) == language


@pytest.mark.parametrize("path", ["bin/tool", "a.unknownext", ".py", "archive.tar.gz", ""])
def test_unknown_is_none(path: str) -> None:
    assert language_of(path) is None
