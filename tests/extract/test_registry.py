from __future__ import annotations

from collections.abc import Iterator

import pytest

from repoctx.extract import Symbol, extract, extractor_for, register
from repoctx.extract import registry as registry_module
from repoctx.extract.python import extract_python


@pytest.fixture
def clean_registry() -> Iterator[None]:
    saved = dict(registry_module._EXTRACTORS)
    yield
    registry_module._EXTRACTORS.clear()
    registry_module._EXTRACTORS.update(saved)


def test_python_is_registered_by_default() -> None:
    assert extractor_for("python") is extract_python
    assert [s.fq_name for s in extract("pkg/m.pyi", "def f(): ...\n")] == ["pkg.m.f"]


def test_languages_without_an_extractor_declare_nothing() -> None:
    assert extractor_for("cobol") is None
    assert extractor_for(None) is None
    assert extract("README.md", "# def f(): pass\n") == ()
    assert extract("no_extension", "def f(): pass\n") == ()


def test_register_adds_and_replaces(clean_registry: None) -> None:
    def fake(path: str, text: str) -> tuple[Symbol, ...]:
        return (Symbol(f"{path}:{len(text)}", "x", "variable", "x", "", 1, 1),)

    register("markdown", fake)
    assert extractor_for("markdown") is fake
    assert extract("a.md", "abc")[0].fq_name == "a.md:3"
    register("python", fake)
    assert extract("a.py", "")[0].fq_name == "a.py:0"
