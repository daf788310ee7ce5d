"""retrieval/fuzzy — typo correction against the index vocabulary.

Reads ``repoctx_search_vocab`` once per open export. A query word the vocabulary does
not hold is corrected to the nearest word by edit distance (``rapidfuzz`` OSA: Levenshtein
with adjacent transpositions as one edit, so ``qeury`` is one edit from ``query``): at
most 1 edit for words of up to 5 letters, 2 beyond; ties go to the more frequent word.
A correction is a recovery path ("look here"), so search reports it in ``reasons``
and ``corrected`` rather than applying it silently.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from rapidfuzz import process
from rapidfuzz.distance import OSA

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

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self.counts

    def correct(self, word: str) -> str | None:
        """The nearest known word to ``word`` within ``max_edits``, or None."""
        word = word.lower()
        if len(word) < MIN_WORD or word in self.counts or not word.isalpha():
            return None
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
