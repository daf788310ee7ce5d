"""retrieval/bundle/file_class — what a bundle candidate is, read from its content and layout.

Pure; no I/O. An agent edits a repository's own source; the same repository also holds
copies of other projects (a library pasted in with its licence header), minified and
generated files, data (JSON, CSV, notebooks), translation catalogues, tests and prose.
They match a task's words as well as the source does and are often far larger, so a
bundle ranks them below the source. Each class is recognised from what the file holds
and how it is laid out (line lengths, a licence header naming another copyright holder, a
"generated" banner, catalogue entries, tabular or key-value rows), never from names
particular to a repository; tests, release notes, prose and the documentation's example
scripts keep their layout conventions (``priors``, ``path_roles``).
Only the head of a file is read (``HEAD_CHARS``), so a class costs microseconds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from repoctx.retrieval import generated
from repoctx.retrieval.licence_notice import foreign_notice
from repoctx.retrieval.path_roles import is_changelog, is_test_path
from repoctx.retrieval.priors import CHANGELOG_WORDS, DOC_WORDS, TEST_WORDS, is_prose
from repoctx.retrieval.tuning import TUNING, Tuning

SOURCE, TEST, PROSE, CHANGELOG = "source", "test", "prose", "changelog"
VENDORED, GENERATED, MINIFIED, DATA, LOCALE = "vendored", "generated", "minified", "data", \
    "locale"
FOREIGN = frozenset({GENERATED, MINIFIED, DATA, LOCALE})
"""Classes an agent almost never edits for a task: they follow everything else. A file
under another project's licence header may still be maintained here (adapted code), so
``VENDORED`` only weighs less."""
DATA_LANGUAGES = frozenset({"json", "xml"})
HEAD_CHARS = 16_384
TABLE_ROWS = 8
_CATALOGUE = re.compile(r"(?m)^(?:msgid|msgstr)\s+\"|<trans-unit\b")
_CATALOGUE_WORDS = ("msgid", "msgstr", "<trans-unit")
"""Words every ``_CATALOGUE`` match holds, tested first likewise."""
_WORD = re.compile(r"[a-z]{3,}")
_KEY_VALUE = re.compile(r"""\s*(["'])(?:\\.|(?!\1).)*\1\s*:""")


def classify(path: str, language: str | None, text: str | None,
             own_holders: frozenset[str] = frozenset()) -> str:
    """The class of the file at ``path`` (``language`` as the store names it) from the
    head of its ``text`` (None when it cannot be read: layout conventions only).

    ``own_holders``: words of the repository's own copyright line (``holder_words``), so
    a licence header of the repository itself is not taken for a foreign one.
    """
    if text is not None:
        found = content_class(text[:HEAD_CHARS], language, own_holders,
                              tail=text[-generated.TAIL_CHARS:])
        if found is not None:
            return found
    if is_test_path(path):
        return TEST
    if is_changelog(path):
        return CHANGELOG
    if is_prose(path, language=language):
        return PROSE
    return SOURCE


def content_class(head: str, language: str | None,
                  own_holders: frozenset[str] = frozenset(), tail: str = "") -> str | None:
    """A foreign class read from a file's head (and ``tail``, its last characters, where
    bundlers leave a source-map comment), or None when it reads as the repository's."""
    lines = head.splitlines()
    if not lines:
        return None
    if generated.is_minified(head, lines):
        return MINIFIED
    if any(word in head for word in _CATALOGUE_WORDS) and len(_CATALOGUE.findall(head)) >= 4:
        return LOCALE
    if generated.marker(head, tail) is not None:
        return GENERATED
    if language in DATA_LANGUAGES or _tabular(lines) or _key_values(lines):
        return DATA
    if foreign_notice(lines, own_holders):
        return VENDORED
    return None


def _rows(lines: list[str]) -> list[str]:
    """The head's first non-blank lines, as a table's rows (none when too few to tell)."""
    rows = [line for line in lines[:64] if line.strip()]
    return rows if len(rows) >= TABLE_ROWS else []


def _tabular(lines: list[str]) -> bool:
    """Rows of one shape: the same number (two or more) of commas or tabs on every line."""
    rows = _rows(lines)
    return bool(rows) and any(len({row.count(sep) for row in rows}) == 1 and rows[0].count(sep) >= 2
               for sep in (",", "\t"))


def _key_values(lines: list[str]) -> bool:
    """Rows of quoted keys and their values (``"Contents": "",``) on three of every four
    lines: a table written as a literal, as message catalogues compiled to a script are."""
    rows = _rows(lines)
    return bool(rows) and sum(1 for row in rows if _KEY_VALUE.match(row)) * 4 >= len(rows) * 3


def weight(cls: str, asks_tests: bool, asks_docs: bool, asks_releases: bool, *,
           tuning: Tuning = TUNING) -> float:
    """How far a class ranks behind source (divides its rank: 1.0 keeps it), by
    ``DocumentTuning``'s bundle weights."""
    doc = tuning.documents
    if cls == TEST:
        return doc.test_asked_weight if asks_tests else doc.test_weight
    if cls == PROSE:
        return doc.prose_asked_weight if asks_docs else doc.prose_weight
    if cls == CHANGELOG:
        return doc.changelog_asked_weight if asks_releases else doc.changelog_weight
    if cls == VENDORED:
        return doc.vendored_weight
    return 1.0


def secondary(cls: str, asks: tuple[bool, bool, bool]) -> bool:
    """True for a file the task did not ask about: a test, prose or release notes the
    task is not about, a vendored or foreign file. Its bundle entry is its best unit
    alone (``units.Source.lean``): it may still say where to look, and the budget goes
    to the source an agent edits."""
    asks_tests, asks_docs, asks_releases = asks
    if cls in FOREIGN or cls == VENDORED:
        return True
    return ((cls == TEST and not asks_tests) or (cls == PROSE and not asks_docs)
            or (cls == CHANGELOG and not asks_releases))


def task_asks(task: str) -> tuple[bool, bool, bool]:
    """Whether the task is about tests, documentation, releases: its title (first line)
    or its opening words say so (a test mentioned in passing further down does not)."""
    opening = " ".join(task.strip().splitlines()[:1]).lower()
    words = set(_WORD.findall(opening)) | set(opening.split())
    return bool(words & TEST_WORDS), bool(words & DOC_WORDS), bool(words & CHANGELOG_WORDS)


def ordered(classes: Iterable[str], asks: tuple[bool, bool, bool], *,
            tuning: Tuning = TUNING) -> list[int]:
    """Indices of ranked files' ``classes``, best first: rank over the class's weight, the
    foreign classes after all others (each group in its rank order)."""
    keyed = []
    for rank, cls in enumerate(classes):
        foreign = cls in FOREIGN
        keyed.append((foreign, (rank + 1) / weight(cls, *asks, tuning=tuning), rank))
    return [rank for *_, rank in sorted(keyed)]
