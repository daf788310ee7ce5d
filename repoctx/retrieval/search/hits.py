"""retrieval/search/hits — ``repocontext_search``: keyword search over files, symbols and sections.

Reads the export's ``repoctx_search_*`` tables (``search_index``) through a read-only
connection; writes only when ``refresh=True`` finds a stale hit (reconcile, re-export,
index update). Every query passes ``sanitise_query`` once, a long one (a pasted issue,
up to ``task_text.MAX_TEXT_CHARS``) after ``task_text`` reduced it; arguments are checked here
and reported as ``ToolError`` naming the argument; SQLite errors never reach the caller.
Without the search tables, search falls back to the ContextPull reader's lexical search
and says so in ``retrievalPath``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from repoctx import contextpull, vectors
from repoctx.errors import ToolError
from repoctx.memory import memory_hits
from repoctx.reconcile import Declaration, reconcile_pass
from repoctx.reconcile.nodes import symbol_record
from repoctx.retrieval.index.export_extras import export_extras
from repoctx.retrieval.index.section_symbols import fq_name
from repoctx.retrieval.query import IDENTIFIER_PART, QueryTerms, is_compound, replace_words
from repoctx.retrieval.search.candidates import (
    CONTENT,
    MENTIONED,
    NAMED,
    NO_HINTS,
    PARTIAL,
    PATH,
    Candidate,
    TaskHints,
    exact_first,
    gather,
    qualified_first,
    rerank,
    rerank_words,
)
from repoctx.retrieval.search.fusion import fuse, guarded
from repoctx.retrieval.search.fuzzy import identifier_corrections
from repoctx.retrieval.search.rankings import matches_filter
from repoctx.retrieval.search.snippets import snippet
from repoctx.retrieval.search.state import SearchState, forget_state, search_state, sqlite_errors
from repoctx.retrieval.search.task_text import (
    check_text,
    fits_as_typed,
    index_stats,
    pasted_task,
    query_terms,
    task_names,
    task_paths,
    title_words,
)
from repoctx.retrieval.workspace import Workspace

KINDS = ("file", "symbol", "section", "memory")
K_MIN, K_MAX = 1, 100
MAX_QUERIES = 10
MAX_PATH_FILTERS, MAX_PATH_CHARS = 50, 500
MAX_REASONS = 6
MODE, RETRIEVAL_PATH, FALLBACK_PATH = "keyword", "keyword.no_embedder", "keyword.contextpull"
_REASON = {PATH: "path-name-match", CONTENT: "content-match", PARTIAL: "partial-name-match",
           NAMED: "task-names-definition", MENTIONED: "task-names-file"}


class Asked(NamedTuple):
    """One query as search takes it: its terms, what a pasted task names besides, and
    whether it is long (``_is_long``: decided on the text as sent)."""

    terms: QueryTerms
    hints: TaskHints
    long: bool


STRONG_REASONS = ("symbol:",)
"""Reasons that make a keyword hit strong lexical evidence (kept above semantic ones):
the query names the hit's symbol."""


def _check_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, int):
        raise ToolError(f"k: must be an integer from {K_MIN} to {K_MAX} (got {k!r})")
    return max(K_MIN, min(K_MAX, k))


def _check_list(name: str, value: object, limit: int) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise ToolError(f"{name}: must be a list of strings (got {type(value).__name__})")
    if not value or len(value) > limit or not all(isinstance(v, str) and v for v in value):
        raise ToolError(f"{name}: must hold 1 to {limit} non-empty strings")
    return list(value)


def _check_kinds(kinds: object) -> tuple[str, ...]:
    given = _check_list("kinds", kinds, len(KINDS))
    if given is None:
        return KINDS
    unknown = [k for k in given if k not in KINDS]
    if unknown:
        raise ToolError(f"kinds: unknown {', '.join(map(repr, unknown))}; valid values are "
                        f"{', '.join(KINDS)}")
    return tuple(k for k in KINDS if k in given)


def _check_queries(query: object, queries: object) -> tuple[list[tuple[str, str]], bool]:
    """``(text, argument)`` of each query, bounded (``task_text.check_text``)."""
    if (query is None) == (queries is None):
        raise ToolError("query: give exactly one of query or queries")
    if query is not None:
        return [(check_text(query, "query"), "query")], False
    listed = _check_list("queries", queries, MAX_QUERIES)
    assert listed is not None
    return [(check_text(q, f"queries[{i}]"), f"queries[{i}]") for i, q in enumerate(listed)], True


def _terms(ws: Workspace, checked: list[tuple[str, str]]) -> list[Asked]:
    """Each query's terms: as typed when short, else reduced with the index's statistics
    (a pasted issue of up to ``task_text.MAX_TEXT_CHARS``); a reduced text also brings
    what it names beyond its reduced words (``TaskHints``)."""
    out = []
    for text, argument in checked:
        text = pasted_task(text, lambda: search_state(ws.export))
        terms = query_terms(text, argument, lambda: index_stats(search_state(ws.export),
                                                                     ws.tuning))
        hints = NO_HINTS
        if not fits_as_typed(text) and (state := search_state(ws.export)).indexed:
            hints = TaskHints(tuple(task_names(text, index_stats(state, ws.tuning))),
                              tuple(task_paths(text)), tuple(title_words(text)))
        out.append(Asked(terms, hints, _is_long(text, ws.tuning.hits.long_query_words)))
    return out


def search(ws: Workspace, query: str | None = None, *, queries: list[str] | None = None,
           k: int = 10, kinds: list[str] | None = None, paths: list[str] | None = None,
           refresh: bool = False, brief: bool = False) -> dict[str, Any]:
    """``repocontext_search``: ranked hits for ``query`` (or each of ``queries``).

    Returns ``{"hits", "mode", "retrievalPath"[, "corrected"][, "refreshed"]}``, or
    ``{"results": [{"query", "hits", ...}], "mode", "retrievalPath"}`` for ``queries``.
    ``brief`` leaves each code hit's snippet and freshness out, for callers that only
    rank (context bundles check freshness themselves); ``refresh`` then sees nothing stale.
    """
    checked, many = _check_queries(query, queries)
    k = _check_k(k)
    wanted = _check_kinds(kinds)
    filters = _check_list("paths", paths, MAX_PATH_FILTERS)
    if filters and any(len(p) > MAX_PATH_CHARS for p in filters):
        raise ToolError(f"paths: each filter at most {MAX_PATH_CHARS} characters")
    if not isinstance(refresh, bool):
        raise ToolError("refresh: must be true or false")
    asked = _terms(ws, checked)
    results = [_answer(ws, a.terms, k, wanted, filters, brief, a.hints, a.long) for a in asked]
    stale = sorted({h["path"] for r in results for h in r["hits"] if not h.get("fresh", True)})
    if refresh and stale:
        refresh_index(ws)
        results = [{**_answer(ws, a.terms, k, wanted, filters, brief, a.hints, a.long),
                    "refreshed": stale} for a in asked]
    if not many:
        return results[0]
    return {"results": [{"query": a.terms.text, **r}
                        for a, r in zip(asked, results, strict=True)],
            "mode": MODE, "retrievalPath": results[0]["retrievalPath"]}


def refresh_index(ws: Workspace) -> None:
    """Reconcile the store and re-export it with its search index (renamed into place)."""
    reconcile_pass(ws.store, ws.root)
    contextpull.export_store(ws.store, ws.root, ws.export, previous=ws.export,
                             finalize=export_extras(ws.store))
    forget_state(ws.export)


def _is_long(text: str, most: int) -> bool:
    """True for a pasted issue rather than a question: more than ``most``
    words in the text as sent (a reduced query has fewer, so it cannot tell)."""
    return len(text.split()) > most


def _answer(ws: Workspace, terms: QueryTerms, k: int, kinds: tuple[str, ...],
            paths: list[str] | None, brief: bool, hints: TaskHints, long: bool
            ) -> dict[str, Any]:
    base: dict[str, Any] = {"hits": [], "mode": MODE, "retrievalPath": RETRIEVAL_PATH}
    if terms.empty:
        return {**base, "hint": "no searchable words in the query"}
    state = search_state(ws.export)
    if not state.indexed:
        return _fallback(ws, terms, k, paths)
    corrections = _identifier_corrections(state, terms)
    if corrections:
        terms = replace_words(terms, corrections)
    tuning = ws.tuning
    candidates = gather(state, terms, paths, hints, tuning=tuning)
    if not candidates:
        words = state.vocabulary().corrections(t for t in terms.raw if t.isalpha())
        if words:
            corrections.update(words)
            terms = replace_words(terms, words)
            candidates = gather(state, terms, paths, hints, tuning=tuning)
    ranked = exact_first(rerank(state, candidates, terms, tuning=tuning), terms)
    ranked = qualified_first(ranked, hints.names)
    hits = (_hits(ws, state, ranked, terms, kinds, k, corrections, brief)
            if kinds != ("memory",) else [])
    if "memory" in kinds and not paths:
        hits = _with_memory(hits, memory_hits(ws.store, terms.text, k), k)
    hits, path = _with_semantic(ws, hits, terms.text, k, kinds, paths, long)
    out = {**base, "hits": hits, "retrievalPath": path}
    if path.startswith("semantic"):
        out["mode"] = "hybrid"
    if corrections:
        out["corrected"] = {"query": terms.text, "words": corrections}
    return out


def _identifier_corrections(state: SearchState, terms: QueryTerms) -> dict[str, str]:
    """Typed identifiers with a part no name or word of the index holds, corrected by
    parts against the symbol names (``fuzzy.correct_identifier``)."""
    words = state.vocabulary()
    # only a part no indexed word holds is corrected: without one, the symbol names'
    # parts (a scan of every name, most of a fresh process's first search) are not read
    unknown = [t for t in terms.raw if is_compound(t)
               and any(p.lower() not in words for p in IDENTIFIER_PART.findall(t))]
    if not unknown:
        return {}
    return identifier_corrections(unknown, state.name_parts(), words)


def _fuse_hits(ranked: list[tuple[str, list[dict[str, Any]]]], k: int) -> list[dict[str, Any]]:
    """Ranked hit lists fused by reciprocal rank, one hit per key (the first list's copy);
    ties go to the earlier list, then the better rank."""
    by_key: dict[str, dict[str, Any]] = {}
    for _, hits in ranked:
        for hit in hits:
            by_key.setdefault(hit["key"], hit)
    order = {name: i for i, (name, _) in enumerate(ranked)}
    fused = fuse([(name, 1.0, [h["key"] for h in hits]) for name, hits in ranked])
    best = sorted(fused.values(), key=lambda f: (-f.score, min(order[n] for n in f.sources),
                                                 min(f.sources.values()), str(f.key)))
    return [by_key[f.key] for f in best[:k]]


def _with_memory(code: list[dict[str, Any]], notes: list[dict[str, Any]], k: int,
                 ) -> list[dict[str, Any]]:
    """Code hits and memory entries fused by reciprocal rank (a note has no file: fresh)."""
    return _fuse_hits([("code", code), ("memory", [{**h, "fresh": True} for h in notes])], k)


def _with_semantic(ws: Workspace, hits: list[dict[str, Any]], query: str, k: int,
                   kinds: tuple[str, ...], paths: list[str] | None, long: bool,
                   ) -> tuple[list[dict[str, Any]], str]:
    """Keyword hits fused by reciprocal rank with the embedder's nearest sources (when an
    embedder is configured; otherwise the keyword hits as they are); after a ``long``
    query the neighbours only follow the keyword hits."""
    near, path = vectors.semantic_hits(ws, query, k)
    near = [h for h in near if h["kind"] in kinds
            and (not paths or (h.get("path") and matches_filter(h["path"], paths)))]
    if not near:
        return hits, path if path.startswith("semantic") else RETRIEVAL_PATH
    keyword = {h["key"]: h for h in hits}
    for h in near:
        if h["key"] in keyword:
            found = keyword[h["key"]]
            found["reasons"] = [*found["reasons"], "semantic"][:MAX_REASONS]
    by_key = {h["key"]: {
        "score": h["score"], "key": h["key"], "kind": h["kind"], "path": h.get("path"),
        "symbol": h.get("symbol"), "snippet": "", "reasons": ["semantic"],
        "fresh": ws.is_fresh(h["path"]) if h.get("path") else True}
        for h in near if h["key"] not in keyword} | keyword
    fusion = ws.tuning.fusion
    weight = 0.0 if long else fusion.semantic_weight
    order = guarded(list(keyword), [h["key"] for h in near], pinned=_strong_prefix(hits),
                    weight=weight, k=fusion.guarded_k)
    return [by_key[key] for key in order[:k]], path


def _strong_prefix(hits: list[dict[str, Any]]) -> int:
    """How many leading keyword hits carry strong lexical evidence (the query names
    their symbol): semantic neighbours never displace those."""
    count = 0
    for hit in hits:
        if not any(r.startswith(STRONG_REASONS) for r in hit["reasons"]):
            break
        count += 1
    return count


def _natural_kind(cand: Candidate) -> str:
    if cand.section is None or cand.sources.keys() <= {PATH, MENTIONED}:
        return "file"
    if cand.symbol is not None or cand.section.symbol:
        return "symbol"
    return "section"


_KIND_ORDER = {"symbol": ("symbol", "section", "file"), "section": ("section", "file"),
               "file": ("file",)}


def _shown_kinds(natural: str, kinds: tuple[str, ...]) -> list[str]:
    """The kinds a candidate may be shown as, best first, among those asked for."""
    return [kind for kind in _KIND_ORDER[natural] if kind in kinds]


def _reasons(cand: Candidate, corrections: dict[str, str]) -> list[str]:
    reasons = [f"fuzzy:{a}->{b}" for a, b in corrections.items()]
    if cand.symbol is not None:
        reasons.append(f"symbol:{cand.symbol.fq}")
    reasons += [_REASON[s] for s in (NAMED, MENTIONED, PATH, CONTENT, PARTIAL)
                if s in cand.sources]
    if cand.rerank is not None and cand.rerank.heading > 0:
        reasons.append("heading-match")
    if cand.rerank is not None and cand.rerank.pairs:
        reasons.append("terms-adjacent")
    return reasons[:MAX_REASONS]


def _fq_of(cand: Candidate) -> str | None:
    """The candidate's symbol: the one it matched, else its section's, else None."""
    if cand.symbol is not None:
        return cand.symbol.fq
    section = cand.section
    return fq_name(section.path, section.symbol) if section is not None and section.symbol \
        else None


def _symbol_of(ws: Workspace, cand: Candidate) -> tuple[str, Declaration] | None:
    """The candidate's symbol and its stored declaration in the candidate's file, or None
    when the store does not hold it (an export newer than the index): a symbol hit names
    only keys that exist, with the definition's own lines."""
    fq = _fq_of(cand)
    if fq is None:
        return None
    decl = symbol_record.declaration_at(ws.get(ws.store.key("symbol", fq)), cand.path)
    return None if decl is None else (fq, decl)


def _hit(ws: Workspace, cand: Candidate, shown: list[str], corrections: dict[str, str]
         ) -> dict[str, Any] | None:
    """The hit of a candidate as the first of ``shown`` it can be (None when none)."""
    section = cand.section
    symbol = _symbol_of(ws, cand) if shown and shown[0] == "symbol" else None
    kinds = shown if symbol is not None else [k for k in shown if k != "symbol"]
    if not kinds:
        return None
    kind = kinds[0]  # "symbol" only when its declaration was found
    hit: dict[str, Any] = {"score": round(cand.score, 5), "kind": kind, "path": cand.path}
    if symbol is not None:
        fq, decl = symbol
        hit.update(key=ws.store.key("symbol", fq), symbol=fq,
                   lines=[decl.start_line, decl.end_line])
    elif kind == "file":
        hit["key"] = ws.store.key("file", cand.path)
    else:
        assert section is not None
        hit["key"] = section.section_id
        fq = _fq_of(cand)
        if fq is not None:
            hit["symbol"] = fq
        if section.start_line is not None and section.end_line is not None:
            hit["lines"] = [section.start_line, section.end_line]
    hit["reasons"] = _reasons(cand, corrections)
    return hit


def _fill_texts(state: SearchState, cands: list[Candidate]) -> None:
    """Read, in one query, the section texts the reranker did not already read."""
    missing = [c.section.rowid for c in cands if not c.text and c.section is not None]
    if not missing:
        return
    marks = ", ".join("?" * len(missing))
    with sqlite_errors("reading sections"):
        texts = dict(state.conn.execute(
            f"SELECT rowid, text FROM sections WHERE rowid IN ({marks})", missing))
    for cand in cands:
        if not cand.text and cand.section is not None:
            cand.text = texts.get(cand.section.rowid, "")


def _diverse(cands: list[Candidate], per_file: int) -> list[Candidate]:
    """At most ``per_file`` candidates per file first, then the rest, in order."""
    seen: dict[str, int] = {}
    first, later = [], []
    for cand in cands:
        seen[cand.path] = seen.get(cand.path, 0) + 1
        (first if seen[cand.path] <= per_file else later).append(cand)
    return first + later


def _hits(ws: Workspace, state: SearchState, ranked: list[Candidate], terms: QueryTerms,
          kinds: tuple[str, ...], k: int, corrections: dict[str, str],
          brief: bool) -> list[dict[str, Any]]:
    chosen: list[tuple[Candidate, dict[str, Any]]] = []
    keys: set[str] = set()
    for cand in _diverse(ranked, ws.tuning.hits.per_file_first):
        hit = _hit(ws, cand, _shown_kinds(_natural_kind(cand), kinds), corrections)
        if hit is not None and hit["key"] not in keys:
            keys.add(hit["key"])
            chosen.append((cand, hit))
            if len(chosen) >= k:
                break
    if brief:
        return [hit for _, hit in chosen]
    _fill_texts(state, [cand for cand, _ in chosen])
    words = rerank_words(terms)
    fresh: dict[str, bool] = {}
    for cand, hit in chosen:
        hit["snippet"] = (snippet(cand.text, words, positions=cand.positions) if cand.text
                          else cand.path)
        if cand.path not in fresh:
            fresh[cand.path] = ws.is_fresh(cand.path)
        hit["fresh"] = fresh[cand.path]
    return [hit for _, hit in chosen]


def _fallback(ws: Workspace, terms: QueryTerms, k: int, paths: Sequence[str] | None
              ) -> dict[str, Any]:
    """ContextPull's lexical search, for an export without the search tables."""
    found = ws.reader().search(terms.text, in_=list(paths) if paths else None, limit=k)
    hits = [{"score": h["score"], "key": h["id"], "kind": "section", "path": h["doc"],
             "snippet": h["snippet"], "reasons": ["content-match"], "fresh": ws.is_fresh(h["doc"])}
            for h in found["hits"]]
    return {"hits": hits, "mode": MODE, "retrievalPath": FALLBACK_PATH}
