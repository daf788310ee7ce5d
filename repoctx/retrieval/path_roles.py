"""retrieval/path_roles — what a path's place says a document is: a test, vendored code, a
translation catalogue, release notes, or documentation and its examples.

Pure; no I/O, and no ranking constants: the export's search index reads these predicates to
keep secondary documents apart (``index/tables``), so they live apart from the priors that
weigh them at query time (``priors``), and a change to a weight never touches what an index
holds.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import PurePosixPath

from repoctx.extract import is_test_file

_VENDOR_DIRS = frozenset({"vendor", "vendored", "node_modules", "third_party", "bower_components"})
_CHANGELOG_DIRS = frozenset({"releases", "changelog", "changelogs", "changes"})
_CHANGELOG_STEMS = frozenset({"changelog", "changes", "history", "news", "releases"})
_TEST_DIRS = frozenset({"tests", "testing", "js_tests", "__tests__", "spec", "specs"})
_DOC_DIRS = frozenset({"doc", "docs", "documentation", "example", "examples"})
CATALOGUE_SUFFIXES = (".po", ".pot", ".mo")


@lru_cache(maxsize=1 << 16)
def is_test_path(path: str) -> bool:
    """True for a file of a test suite: under ``tests/``, or named ``test_*`` / ``*_test(s)``."""
    pure = PurePosixPath(path)
    if any(part in _TEST_DIRS for part in pure.parts[:-1]):
        return True
    stem = pure.stem
    return (stem.startswith("test_") or stem.endswith(("_test", "_tests")) or stem == "tests"
            or stem == "conftest" or is_test_file(path))


@lru_cache(maxsize=1 << 16)
def is_vendored(path: str) -> bool:
    """True for third-party code copied into the repository, or minified bundles."""
    pure = PurePosixPath(path)
    return any(p in _VENDOR_DIRS for p in pure.parts[:-1]) or ".min." in pure.name


@lru_cache(maxsize=1 << 16)
def is_documentation(path: str) -> bool:
    """True for a file of the documentation or its examples (``docs/``, ``examples/``),
    whatever its language: the scripts beside the prose show the library, not change it."""
    return any(part.lower() in _DOC_DIRS for part in PurePosixPath(path).parts[:-1])


@lru_cache(maxsize=1 << 16)
def is_changelog(path: str) -> bool:
    """True for release notes and change logs (they mention everything, once per version)."""
    pure = PurePosixPath(path)
    return (any(p.lower() in _CHANGELOG_DIRS for p in pure.parts[:-1])
            or pure.stem.lower() in _CHANGELOG_STEMS)


def is_secondary(path: str) -> bool:
    """True for a document whose prior is below 1 whatever the query: test, vendored code,
    translation catalogue or release notes (the search index keeps them apart)."""
    return (path.endswith(CATALOGUE_SUFFIXES) or is_vendored(path) or is_changelog(path)
            or is_test_path(path))
