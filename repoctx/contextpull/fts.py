"""`contextpull/fts` — the one place a user query becomes an FTS5 MATCH expression.

Pure; no I/O. Every token is passed as an FTS5 string (double quotes doubled inside), so
operators such as ``NEAR``, ``AND``, ``*``, ``:`` or a stray ``"`` in a query are never
interpreted by FTS5: they are searched for as words, or dropped by the tokeniser.
"""

from __future__ import annotations

from dataclasses import dataclass

from repoctx.contextpull.tokens import query_tokens


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

    def passes(self) -> list[str]:
        """The expressions to run, in order: phrase, AND, OR (absent passes skipped)."""
        return [q for q in (self.phrase, self.all_terms, self.any_term) if q is not None]


def match_queries(query: str) -> MatchQueries | None:
    """Build the search passes for ``query``; ``None`` when it has no searchable words."""
    tokens = tuple(query_tokens(query))
    if not tokens:
        return None
    quoted = [quote_fts(token) for token in tokens]
    any_term = " OR ".join(quoted)
    if len(tokens) < 2:
        return MatchQueries(tokens, None, None, any_term)
    return MatchQueries(tokens, quote_fts(" ".join(tokens)), " AND ".join(quoted), any_term)
