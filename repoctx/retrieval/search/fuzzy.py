"""retrieval/search/fuzzy — typo correction against the index vocabulary.

Reads ``repoctx_search_vocab`` once per open export. A query word the vocabulary does
not hold is corrected to the nearest word by edit distance (``rapidfuzz`` OSA: Levenshtein
with adjacent transpositions as one edit, so ``qeury`` is one edit from ``query``): at
most 1 edit for words of up to 5 letters, 2 beyond; ties go to the more frequent word.
A correction is a recovery path ("look here"), so search reports it in ``reasons``
and ``corrected`` rather than applying it silently.

An identifier (``regster_bluprint``, ``getHttpRespnse``) is corrected by parts: each part
that neither the words nor the symbol names of the index hold is corrected against the
parts of the symbol names (``Vocabulary.of_names``), its separators and case kept.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable

from repoctx.retrieval.query import IDENTIFIER_PART, is_compound, split_identifier

MIN_WORD = 3
_CANDIDATES = 8


def max_edits(word: str) -> int:
    """How many edits a correction of ``word`` may make."""
    return 1 if len(word) <= 5 else 2


class Vocabulary:
    """The words of an export with their section counts."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts
        self._words = list(counts)

    @classmethod
    def load(cls, conn: sqlite3.Connection) -> Vocabulary:
        """The vocabulary stored in the export open on ``conn``."""
        return cls(dict(conn.execute("SELECT term, n FROM repoctx_search_vocab")))

    @classmethod
    def of_names(cls, names: Iterable[str]) -> Vocabulary:
        """The identifier parts of symbol ``names``, counted once per name."""
        counts: Counter[str] = Counter()
        for name in names:
            counts.update(set(split_identifier(name)))
        return cls(dict(counts))

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self.counts

    def correct(self, word: str) -> str | None:
        """The nearest known word to ``word`` within ``max_edits``, or None."""
        word = word.lower()
        if len(word) < MIN_WORD or word in self.counts or not word.isalpha():
            return None
        from rapidfuzz import process  # imported by the first word that needs correcting
        from rapidfuzz.distance import OSA

        limit = max_edits(word)
        found = process.extract(word, self._words, scorer=OSA.distance,
                                score_cutoff=limit, limit=_CANDIDATES)
        if not found:
            return None
        best = min(found, key=lambda item: (item[1], -self.counts[item[0]], item[0]))
        return best[0]

    def corrections(self, words: Iterable[str]) -> dict[str, str]:
        """``{typed: corrected}`` for every word of ``words`` that has a correction."""
        out: dict[str, str] = {}
        for word in words:
            fixed = self.correct(word)
            if fixed is not None and fixed != word.lower():
                out[word.lower()] = fixed
        return out


def _same_case(typed: str, fixed: str) -> str:
    if len(typed) > 1 and typed.isupper():
        return fixed.upper()
    return fixed.capitalize() if typed[:1].isupper() else fixed


def correct_identifier(token: str, parts: Vocabulary, words: Vocabulary) -> str | None:
    """``token`` with each part unknown to both ``parts`` and ``words`` corrected against
    ``parts``, separators and case style kept; None when nothing changes."""
    out: list[str] = []
    pos, changed = 0, False
    for match in IDENTIFIER_PART.finditer(token):
        part = match.group(0)
        fixed = None
        if part.lower() not in parts and part.lower() not in words:
            fixed = parts.correct(part)
        out += [token[pos:match.start()], part if fixed is None else _same_case(part, fixed)]
        changed = changed or fixed is not None
        pos = match.end()
    return "".join([*out, token[pos:]]) if changed else None


def identifier_corrections(tokens: Iterable[str], parts: Vocabulary, words: Vocabulary,
                           ) -> dict[str, str]:
    """``{typed: corrected}`` for each compound identifier of ``tokens`` with a part
    corrected by ``correct_identifier``."""
    out: dict[str, str] = {}
    for token in tokens:
        if is_compound(token):
            fixed = correct_identifier(token, parts, words)
            if fixed is not None:
                out[token] = fixed
    return out
