"""extract/language — the contract one language module fills in: the `Language` record.

Invariants: pure values; every callable of a `Language` is a pure function of its
arguments (the only reads go through the `Files` it is handed), never raises on
malformed source, and answers "nothing" (an empty tuple, None, False) rather than an
error. A language module builds one `Language` and the registry lists it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from repoctx.extract.symbol import Symbol


@dataclass(frozen=True, slots=True)
class Import:
    """One import as written in the source: the raw specifier and its 1-based line.

    `specifier` is what the language's import statement names, unresolved and unquoted
    (`./button`, `github.com/x/y/store`, `crate::store::Store`, `pkg.mod`, `"util.h"`
    without quotes).
    """

    specifier: str
    line: int


class Files(Protocol):
    """The repository files an import resolver may consult (relative POSIX paths)."""

    def exists(self, path: str) -> bool:
        """True if `path` is a file of the repository."""
        ...

    def read(self, path: str) -> str | None:
        """The decoded text of `path`, or None if it is not a readable file."""
        ...

    def listdir(self, directory: str) -> tuple[str, ...]:
        """The files (full relative paths) directly inside `directory` ('' is the root)."""
        ...


class Extractor(Protocol):
    """A function from a file's relative path and decoded text to its symbols.

    It must never raise on malformed source: a file that does not parse yields
    whatever the extractor could recover, possibly nothing.
    """

    def __call__(self, path: str, text: str) -> tuple[Symbol, ...]:
        """Return the symbols declared in `text`, the contents of `path`, in source order."""
        ...

ImportReader = Callable[[str, str], tuple[Import, ...]]
"""`(path, text) -> imports`: the raw import specifiers of a file, in source order."""

Resolver = Callable[[str, str, Files], "str | None"]
"""`(importer path, specifier, files) -> path`: the repository file (or, for Go, the
first file of the package directory) an import names, or None (external, unknown)."""

QualnameParts = Callable[[str, str], "tuple[str, ...] | None"]
"""`(path, fq_name) -> parts`: the nesting path of a symbol inside the file at `path`
(`pkg/m.py`, `pkg.m.C.f` -> `("C", "f")`), or None when `fq_name` is not named under
that file's module."""


def _no_imports(path: str, text: str) -> tuple[Import, ...]:
    return ()


def _unresolved(importer: str, specifier: str, files: Files) -> str | None:
    return None


def _no_tests(path: str) -> bool:
    return False


def split_qualname(fq_name: str, module: str, separator: str = ".") -> tuple[str, ...] | None:
    """`fq_name` relative to `module`, split on `separator`; None if not under `module`.

    An empty `module` means the names are not prefixed: the whole `fq_name` is split.
    """
    if not module:
        return tuple(fq_name.split(separator))
    if not fq_name.startswith(module + separator):
        return None
    return tuple(fq_name[len(module) + len(separator):].split(separator))


@dataclass(frozen=True, slots=True)
class Language:
    """Everything repoctx knows about one programming language, in one record.

    - `name`: the language as `language_of` names it (`"go"`, `"typescript"`);
    - `suffixes`: file suffixes it owns (`language_of` dispatches on its own table; a
      test keeps the two equal);
    - `grammar`: the PyPI distribution of its tree-sitter grammar (named in the warning
      when it is not installed);
    - `available`: True when the grammar imports; when False the language's files are
      text sections only and the index report carries one warning;
    - `symbols`: `(path, text) -> tuple[Symbol, ...]`, definitions in source order;
    - `imports`: `(path, text) -> tuple[Import, ...]`, raw specifiers with lines;
    - `resolve`: `(importer, specifier, files) -> path | None`, the language's rules;
    - `is_test_path`: `(path) -> bool`, the ecosystem's test-file conventions;
    - `module`: `(path) -> prefix`, the prefix of every fully-qualified name the file
      declares (`pkg.mod`, `crate::store`, `internal/store`, `src/ui/button`), from
      the path alone; `separator` joins it and the parts of a qualified name;
    - `qualname_parts`: `(path, fq_name) -> parts | None`, how a fully-qualified name
      nests inside the file; by default `fq_name` less the `module` prefix, split on
      `separator`.
    """

    name: str
    suffixes: tuple[str, ...]
    grammar: str
    available: Callable[[], bool]
    symbols: Extractor
    imports: ImportReader = _no_imports
    resolve: Resolver = _unresolved
    is_test_path: Callable[[str], bool] = _no_tests
    qualname_parts: QualnameParts | None = None
    separator: str = "."
    module: Callable[[str], str] | None = None


def first_existing(files: Files, candidates: tuple[str, ...] | list[str]) -> str | None:
    """The first of `candidates` (normalised, inside the repository) that `files` holds."""
    for candidate in candidates:
        path = inside(candidate)
        if path is not None and files.exists(path):
            return path
    return None


def inside(path: str) -> str | None:
    """`path` normalised, or None when it climbs out of the repository."""
    normal = posixpath.normpath(path)
    if normal in (".", "..") or normal.startswith(("../", "/")):
        return None
    return normal
