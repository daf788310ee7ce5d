"""extract/registry — the languages repoctx extracts, and the dispatch through them.

A language is one module building a `Language` record plus one line in `_BUILTIN`.
Invariants: a language without a record, or whose grammar package is not installed,
declares no symbols and no imports (empty tuples, never an error) and
`missing_grammar` names the package to install; the registry is process-wide and
`register` replaces any previous record of the same language.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache

from repoctx.extract.language import Extractor, Files, Import, Language, split_qualname
from repoctx.extract.languages import (
    c,
    cpp,
    csharp,
    golang,
    java,
    javascript,
    php,
    python,
    ruby,
    rust,
    typescript,
)
from repoctx.extract.path_language import language_of
from repoctx.extract.symbol import Symbol

_BUILTIN: tuple[Language, ...] = (
    python.LANGUAGE,
    javascript.LANGUAGE,
    typescript.LANGUAGE,
    golang.LANGUAGE,
    rust.LANGUAGE,
    java.LANGUAGE,
    c.LANGUAGE,
    cpp.LANGUAGE,
    csharp.LANGUAGE,
    ruby.LANGUAGE,
    php.LANGUAGE,
)

_LANGUAGES: dict[str, Language] = {language.name: language for language in _BUILTIN}
_NAME_SEPARATOR = re.compile(r"::|\.|\\|#")


def register(language: Language | str, extractor: Extractor | None = None) -> None:
    """Register a `Language` record, or make `extractor` the symbol extractor of the
    language named `language` (a record without imports or test rules if it had none)."""
    _module.cache_clear()
    if isinstance(language, Language):
        _LANGUAGES[language.name] = language
        return
    if extractor is None:
        raise TypeError("register(name, extractor): an extractor is required with a name")
    known = _LANGUAGES.get(language) or Language(language, (), "", lambda: True, extractor)
    _LANGUAGES[language] = replace(known, available=lambda: True, symbols=extractor)


def language_record(language: str | None) -> Language | None:
    """The record of `language` (as `language_of` names it) if its grammar is installed."""
    record = _LANGUAGES.get(language) if language is not None else None
    return record if record is not None and record.available() else None


def languages() -> tuple[Language, ...]:
    """Every registered language record, installed or not."""
    return tuple(_LANGUAGES.values())


def missing_grammar(language: str | None) -> str | None:
    """The grammar package to install for `language`, if it is registered but its
    grammar does not load (its files are then text sections only); else None."""
    record = _LANGUAGES.get(language) if language is not None else None
    if record is None or record.available():
        return None
    return record.grammar


def extractor_for(language: str | None) -> Extractor | None:
    """The symbol extractor of `language`, or None if there is none (or no grammar)."""
    record = language_record(language)
    return None if record is None else record.symbols


def extract(path: str, text: str) -> tuple[Symbol, ...]:
    """Extract the symbols of `text`, read from `path`, with its language's extractor.

    Returns an empty tuple when the path's language has no registered extractor.
    """
    extractor = extractor_for(language_of(path))
    if extractor is None:
        return ()
    return extractor(path, text)


def imports_of(path: str, text: str) -> tuple[Import, ...]:
    """The raw imports of `text` (the contents of `path`), in source order."""
    record = language_record(language_of(path))
    return () if record is None else record.imports(path, text)


def resolve_import(path: str, specifier: str, files: Files) -> str | None:
    """The repository file an import `specifier` written in `path` names, or None."""
    record = language_record(language_of(path))
    return None if record is None else record.resolve(path, specifier, files)


def qualname_parts(path: str, fq_name: str) -> tuple[str, ...] | None:
    """How `fq_name` nests inside the file `path` (`("Class", "method")`), or None when
    it is not declared under that file's module (or the language is unknown)."""
    record = _LANGUAGES.get(language_of(path) or "")
    if record is None:
        return None
    if record.qualname_parts is not None:
        return record.qualname_parts(path, fq_name)
    module = _module(path)
    if module is None:
        return None
    return split_qualname(fq_name, module, record.separator)


@lru_cache(maxsize=1 << 14)
def _module(path: str) -> str | None:
    """The fq prefix of `path` (None for a language without a `module` rule); readers ask
    once per symbol, so it is remembered per path."""
    record = _LANGUAGES.get(language_of(path) or "")
    return None if record is None or record.module is None else record.module(path)


def qualify(path: str, qualname: str) -> str:
    """The fully-qualified name of `qualname` (parts joined by the language's separator)
    declared in the file `path`; `qualname` itself for a language without a module."""
    module = _module(path)
    if not module:
        return qualname
    return f"{module}{separator_of(path)}{qualname}"


def separator_of(path: str) -> str:
    """The separator between the parts of a qualified name in `path`'s language."""
    record = _LANGUAGES.get(language_of(path) or "")
    return "." if record is None else record.separator


def name_parts(fq_name: str) -> list[str]:
    """`fq_name` split on every naming separator (`.`, `::`, `\\`, `#`)."""
    return [part for part in _NAME_SEPARATOR.split(fq_name) if part]


def simple_name(fq_name: str) -> str:
    """The last segment of a fully-qualified name in any language's convention
    (`pkg.mod.f`, `crate::store::Store::get`, `store.Store.Get` -> `f`, `get`, `Get`)."""
    parts = name_parts(fq_name)
    return parts[-1] if parts else fq_name


def language_test_path(path: str) -> Callable[[str], bool] | None:
    """The test-file rule of `path`'s language (None for a language without one)."""
    record = _LANGUAGES.get(language_of(path) or "")
    return None if record is None else record.is_test_path
