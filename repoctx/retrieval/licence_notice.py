"""retrieval/licence_notice — a licence header naming another project's copyright holder.

Pure; no I/O. A library pasted into a repository keeps its own header ("Copyright JS
Foundation and other contributors, released under the MIT license"); the repository's
own files, when they carry one, name the holder its licence file names. So a header is
foreign when it reads as a licence notice and its holder shares no naming word with the
repository's (``holder_words`` of its licence file). Search weighs such a file down, and
a bundle sends it lean (``bundle/file_class``).
"""

from __future__ import annotations

import re
from functools import lru_cache

_NOTICE = re.compile(r"(?i)@license|@preserve|released under the|licensed under|"
                     r"under the [\w.-]+ licen[cs]e|"
                     r"(?:copyright\s*(?:\(c\)|©|\d{4})|\(c\)\s*\d{4})|"
                     r"spdx-license-identifier|permission is hereby granted")
_NOTICE_WORDS = ("licen", "preserve", "released under", "copyright", "(c)", "spdx",
                 "permission")
"""Words every ``_NOTICE`` match holds (lowercased): tested first, as a substring test is
a scan in C and the pattern costs a file's class twice its other tests."""
_HOLDER = re.compile(r"(?i)(?:copyright\s*(?:\(c\)|©)?|\(c\)(?=\s*\d{4}))\s*(?:[\d,\s-]+)?"
                     r"(?:by\s+)?([^\n.]{3,80})")
_WORD = re.compile(r"[a-z]{3,}")
_GENERIC = frozenset({
    "the", "and", "see", "file", "files", "for", "its", "all", "other", "others", "with",
    "authors", "author", "contributors", "contributor", "individual", "team", "project",
    "developers", "holders", "affiliates", "inc", "ltd", "llc", "corp", "corporation",
    "foundation", "group", "rights", "reserved", "details", "license", "licence"})
"""Words of a copyright line that do not say whose it is (``and other contributors``)."""
HEADER_LINES = 40
"""Lines of a file's head a licence notice is looked for in."""
LICENCES = ("LICENSE", "LICENSE.txt", "LICENSE.md", "LICENCE", "COPYING")
"""Where a repository's own licence is, at its root."""


def foreign_notice(lines: list[str], own_holders: frozenset[str]) -> bool:
    """True when the first ``HEADER_LINES`` of a file's ``lines`` hold a licence notice of
    a holder other than the repository's (``own_holders``)."""
    header = "\n".join(lines[:HEADER_LINES])
    return (any(word in header.lower() for word in _NOTICE_WORDS)
            and _NOTICE.search(header) is not None and not _own_notice(header, own_holders))


def _own_notice(header: str, own_holders: frozenset[str]) -> bool:
    """True when the header's copyright holder is the repository's own: it shares a word
    that names the holder (``the Foo team, see AUTHORS`` against the licence's ``the Foo
    team (see AUTHORS file)``), or, when the licence's holder has no such word, all of
    its words. Generic words alone (``Foundation and contributors``) do not make it own."""
    if not own_holders:
        return False
    naming = own_holders - _GENERIC
    return any(naming & words if naming else own_holders <= words
               for words in map(_words, _HOLDER.findall(header)))


def holder_words(licence_text: str | None) -> frozenset[str]:
    """Words of the first copyright holder a licence text names (empty when none)."""
    match = _HOLDER.search(licence_text or "")
    return _words(match.group(1)) if match else frozenset()


@lru_cache(maxsize=1024)
def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))
