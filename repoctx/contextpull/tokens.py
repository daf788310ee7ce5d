"""`contextpull/tokens` — the token rules shared by writer and reader (seed 000, Tokenisation).

Pure; no I/O. The FTS table uses ``unicode61 remove_diacritics 2 tokenchars '-_.'``, so
``-``, ``_`` and ``.`` are token characters everywhere. The writer therefore strips every
run of them at the start or end of a token before indexing, and the reader tokenises
queries with the same rule, so ``--no-cache`` meets ``no-cache`` and ``cache.`` meets
``cache`` while ``tx-4419``, ``3.12`` and ``tool.uv.sources`` stay whole.
"""

from __future__ import annotations

import re

_EDGE_CHARS = "-_."
# A run of token characters as unicode61 (with tokenchars '-_.') sees it.
_TOKEN_RUN = re.compile(r"[\w.\-]+")
# The contract's query tokeniser: a letter or digit, then letters, digits, '.', '_', '-'.
_QUERY_TOKEN = re.compile(r"[^\W_][\w.\-]*")
_ASCII_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _strip_edges(match: re.Match[str]) -> str:
    return match.group(0).strip(_EDGE_CHARS)


def normalise_fts_text(text: str) -> str:
    """Return ``text`` with leading and trailing ``-``, ``_``, ``.`` runs removed per token.

    Applied to the FTS copies of ``heading_path`` and ``text`` only; ``sections.text``
    keeps the verbatim text.
    """
    return _TOKEN_RUN.sub(_strip_edges, text)


def query_tokens(query: str) -> list[str]:
    """Tokenise a user query as seed 000 prescribes; empty tokens are dropped."""
    tokens = (m.group(0).strip(_EDGE_CHARS) for m in _QUERY_TOKEN.finditer(query.lower()))
    return [token for token in tokens if token]


def ascii_lower(text: str) -> str:
    """Fold ASCII capitals only, exactly as SQLite's built-in ``lower()`` does."""
    return text.translate(_ASCII_UPPER)
