"""`contextpull/read/fts` — the one place a user query becomes an FTS5 MATCH expression.

Pure; no I/O. Every token is passed as an FTS5 string (double quotes doubled inside), so
operators such as ``NEAR``, ``AND``, ``*``, ``:`` or a stray ``"`` in a query are never
interpreted by FTS5: they are searched for as words, or dropped by the tokeniser.

A query of more than :data:`MAX_QUERY_TERMS` tokens costs super-linearly in FTS5 (3,000
words take 21 s), so it is reduced, not refused: its distinct tokens are
ranked by the caller's ``rank`` (rarest first) and the first :data:`MAX_QUERY_TERMS` kept in
query order; the phrase pass is dropped, since a phrase of picked words is no phrase.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from repoctx.contextpull.tokens import query_tokens

MAX_QUERY_TERMS = 32
"""Most tokens a query is searched with; a longer one keeps its most telling distinct ones."""
MAX_RANKED_TERMS = 256
"""Distinct tokens (first in the query) a long query's terms are picked from."""

TermRanker = Callable[[Sequence[str]], Sequence[str]]
"""``rank(terms)`` returns ``terms`` best first (e.g. rarest in the corpus first)."""


def quote_fts(text: str) -> str:
    """Return ``text`` as one FTS5 string literal: wrapped in ``"``, inner ``"`` doubled."""
    return '"' + text.replace('"', '""') + '"'


@dataclass(frozen=True)
class MatchQueries:
    """The MATCH expressions of seed 000's search passes, strictest first.

    ``phrase`` and ``all_terms`` are ``None`` for single-token queries.
    """

    tokens: tuple[str, ...]
    phrase: str | None
    all_terms: str | None
    any_term: str
    reduced: bool = False
    """True when a long query was reduced to :data:`MAX_QUERY_TERMS` of its tokens."""

    def passes(self) -> list[str]:
        """The expressions to run, in order: phrase, AND, OR (absent passes skipped)."""
        return [q for q in (self.phrase, self.all_terms, self.any_term) if q is not None]


def reduce_terms(tokens: Sequence[str], rank: TermRanker | None = None) -> tuple[str, ...]:
    """At most :data:`MAX_QUERY_TERMS` distinct ``tokens``, the best by ``rank``, in order."""
    distinct = list(dict.fromkeys(tokens))[:MAX_RANKED_TERMS]
    best = set((rank(distinct) if rank is not None else distinct)[:MAX_QUERY_TERMS])
    return tuple(token for token in distinct if token in best)


def match_queries(query: str, rank: TermRanker | None = None) -> MatchQueries | None:
    """Build the search passes for ``query``; ``None`` when it has no searchable words.

    ``rank`` orders a long query's distinct tokens best first (default: query order).
    """
    tokens = tuple(query_tokens(query))
    if not tokens:
        return None
    reduced = len(tokens) > MAX_QUERY_TERMS
    if reduced:
        tokens = reduce_terms(tokens, rank)
    quoted = [quote_fts(token) for token in tokens]
    any_term = " OR ".join(quoted)
    if len(tokens) < 2:
        return MatchQueries(tokens, None, None, any_term, reduced)
    phrase = None if reduced else quote_fts(" ".join(tokens))
    return MatchQueries(tokens, phrase, " AND ".join(quoted), any_term, reduced)
