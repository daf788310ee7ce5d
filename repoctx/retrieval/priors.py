"""retrieval/priors — how much a document is worth before the query is read.

Pure; no I/O. A question about behaviour is answered by the code that implements it,
not by the tests that exercise it nor by translation catalogues that repeat its
messages, nor by vendored third-party code, nor by release notes that mention every
feature once per version. Tests and catalogues outnumber the implementation in a typical
repository (Django's sdist: 2,383 test files against 2,435 library files), and test
names are long sentences that match question words by accident. So these candidates
are weighed down; less so when the query itself asks about tests or releases. Prose
weighs less than code unless the query asks for documentation, and so do configuration
and data (``is_data``) unless the query names the file.
"""

from __future__ import annotations

from repoctx.extract import language_of
from repoctx.retrieval.path_roles import (
    CATALOGUE_SUFFIXES,
    is_changelog,
    is_documentation,
    is_test_path,
    is_vendored,
)
from repoctx.retrieval.tuning import TUNING, Tuning

CODE_KIND = "code"
"""The export's document kind of source code (``documents.kind``)."""
PROSE_KINDS = frozenset({"text", "markdown"})
"""The export's document kinds of prose (ContextPull files reStructuredText as ``other``)."""
PROSE_LANGUAGES = frozenset({"markdown", "rst", "text"})
"""The store's languages of prose."""
DOC_WORDS = frozenset({"doc", "docs", "documentation", "documented", "guide", "tutorial",
                       "howto", "manual", "readme"})
CHANGELOG_WORDS = frozenset({"release", "releases", "version", "versions", "changelog",
                             "changed", "changes", "history", "upgrade", "upgrading"})
TEST_WORDS = frozenset({"test", "tests", "testing", "testcase", "unittest", "pytest"})


def document_prior(path: str, query_words: frozenset[str] | set[str],
                   kind: str | None = None, *, tuning: Tuning = TUNING) -> float:
    """The multiplier of every candidate of ``path`` (a document of ``kind``, the export's
    ``documents.kind``) for a query with ``query_words`` (``DocumentTuning``'s priors)."""
    doc = tuning.documents
    if path.endswith(CATALOGUE_SUFFIXES):
        return doc.catalogue_prior
    if is_vendored(path):
        return doc.vendor_prior
    if is_changelog(path) and not query_words & CHANGELOG_WORDS:
        return doc.changelog_prior
    if is_test_path(path):
        return doc.test_asked_prior if query_words & TEST_WORDS else doc.test_prior
    if is_prose(path, kind) and not query_words & DOC_WORDS:
        return doc.prose_prior
    return 1.0


def is_prose(path: str, kind: str | None = None, language: str | None = None) -> bool:
    """True for documentation: a prose document (by its export ``kind`` or its language,
    the store's when given, else its path's), or any file of the documentation's folders
    (its example scripts show, they are not what a task changes)."""
    return (kind in PROSE_KINDS or (language or language_of(path)) in PROSE_LANGUAGES
            or is_documentation(path))


def is_data(path: str, kind: str | None) -> bool:
    """True for a document (of the export's ``kind``) that is neither code nor prose:
    configuration, data, a lock file, a template."""
    return kind is not None and kind != CODE_KIND and not is_prose(path, kind)
