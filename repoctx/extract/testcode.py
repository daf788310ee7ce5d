"""extract/testcode — which files and symbols are tests, by convention and syntax.

Invariants: pure; no I/O. A test *file* is recognised by its path (a `test/` or
`tests/` directory, or its language's file conventions); a test *symbol* is one its
extractor marked (`Symbol.test`: `#[test]`, `func TestX`, `@Test`…) or a test-named
class, function or method declared in a test file, so production code that happens
to be called `test_connection` or `ConnectionTest` is never a test.
"""

from __future__ import annotations

import re
from typing import Final

from repoctx.extract.registry import language_test_path
from repoctx.extract.symbol import CLASS, FUNCTION, METHOD, Symbol

_TEST_DIRS: Final = frozenset({"test", "tests"})
_TEST_CLASS = re.compile(r"Test(?:[A-Z0-9_].*)?\Z|.+Tests?\Z", re.DOTALL)


def is_test_path(path: str) -> bool:
    """True if `path` (relative, POSIX or Windows separators) is a test file.

    Test files are any file under a directory named `tests/` or `test/`, and files
    following their language's convention (`Language.is_test_path`): Python files
    named `test_*.py`, `*_test.py` or `conftest.py` (`.pyi` likewise), `*_test.go`,
    `*.test.ts` / `*.spec.js` or under `__tests__/`, Rust files under `tests/`…
    """
    parts = path.replace("\\", "/").split("/")
    return any(part in _TEST_DIRS for part in parts[:-1]) or is_test_file(path)


def is_test_file(path: str) -> bool:
    """True if `path` follows its language's test-file convention (`*_test.go`,
    `*.spec.ts`, `test_*.py`…), whatever directory holds it."""
    rule = language_test_path(path)
    return rule is not None and rule(path)


def is_test_name(name: str, kind: str) -> bool:
    """True if a symbol called `name` of `kind` follows a test naming convention.

    Classes: `Test` alone or followed by a capital, digit or `_` (`TestParser`, not
    `Testimony`), or ending in `Test` / `Tests` (`ParserTests`). Functions and
    methods: `test_*`. Variables never.
    """
    if kind == CLASS:
        return _TEST_CLASS.match(name) is not None
    if kind in (FUNCTION, METHOD):
        return name.startswith("test_")
    return False


def is_test_symbol(symbol: Symbol, path: str) -> bool:
    """True if `symbol`, declared in the file at `path`, is a test.

    Either its extractor marked it (`symbol.test`), or it is test-named
    (`is_test_name`) *and* declared in a test file (`is_test_path`); the name alone
    is not enough.
    """
    return symbol.test or (is_test_name(symbol.name, symbol.kind) and is_test_path(path))
