"""`contextpull/read/search` — seed 000 search: three lexical passes, optional hybrid fusion.

Reads only. Lexical: phrase, AND, then OR passes, each ranked by
``bm25(sections_fts, 0.0, 2.0, 1.0)`` then id and limited; concatenated without repeats.
Hybrid: cosine over the stored embeddings (the query embedded by the caller's ``embed``)
fused with the lexical ranking by reciprocal rank, k = 60. A long query is searched with
its rarest words in the corpus (``fts.match_queries``; rarity from an in-memory
``fts5vocab`` table over ``sections_fts``), so its cost is bounded.
"""

from __future__ import annotations

import math
import re
import sqlite3
import sys
from array import array
from collections.abc import Callable, Sequence
from typing import Any

from repoctx import deadline
from repoctx.contextpull import sql
from repoctx.contextpull.read.fts import MatchQueries, match_queries
from repoctx.contextpull.tokens import normalise_fts_text

Embedder = Callable[[str, str], Sequence[float]]
"""``embed(model, text)`` returns the vector of ``text`` under the named model."""

RRF_K = 60
DENSE_FACTOR = 4
HINT_NO_WORDS = "no searchable words"
HINT_NO_EMBEDDINGS = "no embeddings in store"
HINT_NO_EMBEDDER = "no query embedder configured; lexical results only"
HINT_NO_HITS = "nothing matched; grep finds substrings inside words"
HINT_REDUCED = "long query: searched for its {n} most distinctive words"
_WHITESPACE = re.compile(r"\s+")
_PREVIEW_WORDS = 20


def collapse(text: str) -> str:
    """All runs of whitespace collapsed to one space."""
    return _WHITESPACE.sub(" ", text)


def lexical_hits(
    conn: sqlite3.Connection, queries: MatchQueries, in_: Sequence[str] | None, limit: int
) -> list[dict[str, Any]]:
    """The lexical hits: the passes in order, repeats dropped, at most ``limit``."""
    filter_sql, params = sql.path_filter_clause(in_)
    statement = sql.search_sql(filter_sql)
    hits: dict[str, dict[str, Any]] = {}
    for match in queries.passes():
        if len(hits) >= limit:
            break
        deadline.check()
        for row in conn.execute(statement, (match, *params, limit)):
            section_id, doc, heading_path, kind, snippet, rank = row
            hits.setdefault(section_id, {
                "id": section_id, "doc": doc, "heading_path": heading_path, "kind": kind,
                "snippet": collapse(snippet), "score": round(-rank, 2),
            })  # fmt: skip
    return list(hits.values())[:limit]


def _unit(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


def _decode(blob: bytes) -> array:
    vector = array("f")
    vector.frombytes(blob)
    if sys.byteorder == "big":
        vector.byteswap()  # stored little-endian
    return vector


def dense_hits(
    conn: sqlite3.Connection, model: str, query_vector: Sequence[float],
    in_: Sequence[str] | None, limit: int,
) -> list[dict[str, Any]]:  # fmt: skip
    """The ``limit`` nearest sections by cosine, ties by id, under the path filter."""
    query = _unit(query_vector)
    filter_sql, params = sql.path_filter_clause(in_)
    scored = []
    for n, (section_id, blob, doc, heading_path, kind, text) in enumerate(conn.execute(
        sql.dense_candidates_sql(filter_sql), (model, *params)
    )):
        if n % 256 == 0:
            deadline.check()
        vector = _decode(blob)
        if len(vector) == len(query):
            cosine = sum(a * b for a, b in zip(query, vector, strict=True))
            scored.append((-cosine, section_id, doc, heading_path, kind, text))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [
        {"id": sid, "doc": doc, "heading_path": hp, "kind": kind, "snippet": _preview(text),
         "score": round(-neg, 4)}
        for neg, sid, doc, hp, kind, text in scored[:limit]
    ]  # fmt: skip


def _preview(text: str) -> str:
    words = collapse(normalise_fts_text(text)).split(" ")
    return " ".join(words[:_PREVIEW_WORDS]) + ("…" if len(words) > _PREVIEW_WORDS else "")


def fuse(rankings: Sequence[list[dict[str, Any]]], limit: int) -> list[dict[str, Any]]:
    """Reciprocal-rank fusion (k = 60); ties by id; the fused value becomes ``score``."""
    scores: dict[str, float] = {}
    items: dict[str, dict[str, Any]] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            scores[hit["id"]] = scores.get(hit["id"], 0.0) + 1.0 / (RRF_K + rank)
            items.setdefault(hit["id"], hit)
    order = sorted(scores, key=lambda sid: (-scores[sid], sid))[:limit]
    return [{**items[sid], "score": round(scores[sid], 4)} for sid in order]


def search(
    conn: sqlite3.Connection, query: str, in_: Sequence[str] | None, limit: int, mode: str,
    embed: Embedder | None,
) -> dict[str, Any]:  # fmt: skip
    """The search result: ``hits``, ``mode``, and ``hint`` when there is something to say."""
    queries = match_queries(query, lambda terms: rarest_first(conn, terms))
    if queries is None:
        return {"hits": [], "mode": "lexical", "hint": HINT_NO_WORDS}
    if mode == "hybrid":
        result = _hybrid(conn, queries, query, in_, limit, embed)
    else:
        result = _with_hint({"hits": lexical_hits(conn, queries, in_, limit), "mode": "lexical"})
    if queries.reduced and "hint" not in result:
        result["hint"] = HINT_REDUCED.format(n=len(queries.tokens))
    return result


def rarest_first(conn: sqlite3.Connection, terms: Sequence[str]) -> list[str]:
    """``terms`` by how few sections hold them; terms absent from the corpus go last.

    Falls back to query order when the binding lacks ``fts5vocab``.
    """
    try:
        conn.execute("PRAGMA query_only = 0")  # a temp (in-memory) table; main stays ro
        try:
            conn.execute(sql.CREATE_VOCABULARY)
        finally:
            conn.execute("PRAGMA query_only = 1")
        counts = dict(conn.execute(sql.document_counts_sql(len(terms)), list(terms)))
    except sqlite3.OperationalError as exc:
        deadline.raise_if_due(exc)
        return list(terms)  # fail open: no vocabulary means query order, still bounded
    order = {term: i for i, term in enumerate(terms)}
    return sorted(terms, key=lambda t: (t not in counts, counts.get(t, 0), order[t]))


def _with_hint(result: dict[str, Any], hint: str | None = None) -> dict[str, Any]:
    if hint is None and not result["hits"]:
        hint = HINT_NO_HITS
    return {**result, "hint": hint} if hint else result


def _hybrid(
    conn: sqlite3.Connection, queries: MatchQueries, query: str, in_: Sequence[str] | None,
    limit: int, embed: Embedder | None,
) -> dict[str, Any]:  # fmt: skip
    row = conn.execute(sql.EMBEDDING_MODEL).fetchone()
    if row is None or embed is None:
        hint = HINT_NO_EMBEDDINGS if row is None else HINT_NO_EMBEDDER
        hits = lexical_hits(conn, queries, in_, limit)
        return _with_hint({"hits": hits, "mode": "lexical"}, hint)
    pool = DENSE_FACTOR * limit
    dense = dense_hits(conn, row[0], embed(row[0], query), in_, pool)
    lexical = lexical_hits(conn, queries, in_, pool)
    return _with_hint({"hits": fuse([lexical, dense], limit), "mode": "hybrid"})
