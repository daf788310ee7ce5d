"""retrieval/priors — how much a document is worth before the query is read.

Pure; no I/O. A question about behaviour is answered by the code that implements it,
not by the tests that exercise it nor by translation catalogues that repeat its
messages, nor by vendored third-party code, nor by release notes that mention every
feature once per version. Tests and catalogues outnumber the implementation in a typical
repository (Django's sdist: 2,383 test files against 2,435 library files), and test
names are long sentences that match question words by accident. So these candidates
are weighed down; less so when the query itself asks about tests or releases. Prose
documents weigh a little less than code unless the query asks for documentation.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import PurePosixPath

from repoctx.extract import is_test_file
from repoctx.retrieval.tuning import TUNING, Tuning

PROSE_KINDS = frozenset({"text", "markdown"})
DOC_WORDS = frozenset({"doc", "docs", "documentation", "documented", "guide", "tutorial",
                       "howto", "manual", "readme"})
CHANGELOG_WORDS = frozenset({"release", "releases", "version", "versions", "changelog",
                             "changed", "changes", "history", "upgrade", "upgrading"})
_VENDOR_DIRS = frozenset({"vendor", "vendored", "node_modules", "third_party", "bower_components"})
_CHANGELOG_DIRS = frozenset({"releases", "changelog", "changelogs", "changes"})
_CHANGELOG_STEMS = frozenset({"changelog", "changes", "history", "news", "releases"})
TEST_WORDS = frozenset({"test", "tests", "testing", "testcase", "unittest", "pytest"})
_TEST_DIRS = frozenset({"tests", "testing", "js_tests", "__tests__", "spec", "specs"})
_CATALOGUE_SUFFIXES = (".po", ".pot", ".mo")


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
def is_changelog(path: str) -> bool:
    """True for release notes and change logs (they mention everything, once per version)."""
    pure = PurePosixPath(path)
    return (any(p.lower() in _CHANGELOG_DIRS for p in pure.parts[:-1])
            or pure.stem.lower() in _CHANGELOG_STEMS)


def is_secondary(path: str) -> bool:
    """True for a document whose prior is below 1 whatever the query: test, vendored code,
    translation catalogue or release notes (the search index keeps them apart)."""
    return (path.endswith(_CATALOGUE_SUFFIXES) or is_vendored(path) or is_changelog(path)
            or is_test_path(path))


def document_prior(path: str, query_words: frozenset[str] | set[str],
                   kind: str | None = None, *, tuning: Tuning = TUNING) -> float:
    """The multiplier of every candidate of ``path`` (a document of ``kind``, the export's
    ``documents.kind``) for a query with ``query_words`` (``DocumentTuning``'s priors)."""
    doc = tuning.documents
    if path.endswith(_CATALOGUE_SUFFIXES):
        return doc.catalogue_prior
    if is_vendored(path):
        return doc.vendor_prior
    if is_changelog(path) and not query_words & CHANGELOG_WORDS:
        return doc.changelog_prior
    if is_test_path(path):
        return doc.test_asked_prior if query_words & TEST_WORDS else doc.test_prior
    if kind in PROSE_KINDS and not query_words & DOC_WORDS:
        return doc.prose_prior
    return 1.0
