from __future__ import annotations

from collections.abc import Iterator

import pytest

from repoctx.extract import (
    Import,
    Language,
    Symbol,
    extract,
    extractor_for,
    imports_of,
    is_test_path,
    language_of,
    missing_grammar,
    name_parts,
    register,
    resolve_import,
    simple_name,
)
from repoctx.extract import registry as registry_module
from repoctx.extract.languages.python import extract_python

from .memory_files import MemoryFiles


@pytest.fixture
def clean_registry() -> Iterator[None]:
    saved = dict(registry_module._LANGUAGES)
    yield
    registry_module._LANGUAGES.clear()
    registry_module._LANGUAGES.update(saved)


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


def _fake_language(available: bool) -> Language:
    def symbols(path: str, text: str) -> tuple[Symbol, ...]:
        return (Symbol("m.f", "f", "function", "fn f()", "", 1, 1),)

    def imports(path: str, text: str) -> tuple[Import, ...]:
        return (Import("./other", 1),)

    return Language("markdown", (".md",), "tree-sitter-markdown-fake", lambda: available,
                    symbols, imports, lambda importer, spec, files: "other.md",
                    lambda path: path.endswith(".spec.md"))


def test_a_language_record_drives_symbols_imports_and_tests(clean_registry: None) -> None:
    register(_fake_language(available=True))
    assert [s.fq_name for s in extract("a.md", "x")] == ["m.f"]
    assert imports_of("a.md", "x") == (Import("./other", 1),)
    assert resolve_import("a.md", "./other", MemoryFiles({})) == "other.md"
    assert is_test_path("a.spec.md") and not is_test_path("a.md")
    assert missing_grammar("markdown") is None


def test_a_language_without_its_grammar_degrades_to_nothing(clean_registry: None) -> None:
    register(_fake_language(available=False))
    assert extractor_for("markdown") is None
    assert extract("a.md", "x") == ()
    assert imports_of("a.md", "x") == ()
    assert resolve_import("a.md", "./other", MemoryFiles({})) is None
    assert missing_grammar("markdown") == "tree-sitter-markdown-fake"
    assert missing_grammar("python") is None and missing_grammar("cobol") is None


def test_simple_names_follow_each_convention() -> None:
    assert simple_name("pkg.mod.f") == "f"
    assert simple_name("crate::store::Store::get") == "get"
    assert simple_name("src/ui/button.test.describe") == "describe"
    assert name_parts("crate::a::B") == ["crate", "a", "B"]


def test_every_language_owns_exactly_the_suffixes_language_of_gives_it() -> None:
    # `Language.suffixes` documents what `languages.language_of` dispatches on; the two
    # tables must not drift apart.
    from repoctx.extract.path_language import _BY_EXTENSION

    for language in registry_module._BUILTIN:
        assert language.suffixes, language.name
        assert {s: language_of(f"x{s}") for s in language.suffixes} == dict.fromkeys(
            language.suffixes, language.name)
        owned = {s for s, name in _BY_EXTENSION.items() if name == language.name}
        assert owned == set(language.suffixes), language.name
