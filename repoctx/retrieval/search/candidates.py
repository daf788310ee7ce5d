"""retrieval/search/candidates — gather, fuse and rerank the candidates of one sanitised query.

Reads the export through a ``SearchState``. Section-level lists: the Porter text ranking
(main table, and the ``_aux`` table of tests / vendored code / release notes matched on
rare words only), the trigram name ranking and the symbol matches (a symbol stands for
the section holding its definition); fused by reciprocal rank. File-level lists: path-
name matches, and files ranked by how many of their sections the text ranking found;
a file's contribution is added to each of its candidate sections, and a path-matched
file with no candidate section becomes a candidate of its own. A pasted task adds what
it names beyond its reduced words (``TaskHints``): the definitions of its rare code names
(candidates, ranked by their files' order) and the files it mentions (paths, traceback
frames, modules, title words that are a file's stem), each a file-level list. Document priors
(``priors``) then scale every candidate, and the best are read in full and reranked by
proximity and heading hits (``rerank``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import NamedTuple

from repoctx.retrieval.index.tables import AUX_TABLE
from repoctx.retrieval.path_roles import is_secondary, is_vendored
from repoctx.retrieval.priors import CHANGELOG_WORDS, TEST_WORDS, document_prior, is_data
from repoctx.retrieval.query import QueryTerms, is_compound, light_stem
from repoctx.retrieval.search.fusion import fuse, ordered
from repoctx.retrieval.search.fuzzy import Vocabulary
from repoctx.retrieval.search.rankings import (
    SymbolMatch,
    definition_ranking,
    matches_filter,
    path_filter,
    symbol_ranking,
    text_ranking,
    trigram_ranking,
    trigram_terms,
)
from repoctx.retrieval.search.rerank import RerankSignals, signals
from repoctx.retrieval.search.snippets import match_positions, term_pattern
from repoctx.retrieval.search.state import SearchState, sqlite_errors
from repoctx.retrieval.tuning import TUNING, Tuning

CONTENT, PARTIAL, SYMBOL, PATH, FILE = "content", "partial-name", "symbol", "path", "file"
NAMED, NAMED_FILE, MENTIONED = "named", "named-file", "mentioned"
_NAME_WORD = re.compile(r"\w+")


def weights(tuning: Tuning = TUNING) -> dict[str, float]:
    """Each ranked list's weight in the fusion, by list name (``CandidateTuning``)."""
    c = tuning.candidates
    return {CONTENT: c.content_weight, PARTIAL: c.partial_weight, SYMBOL: c.symbol_weight,
            PATH: c.path_weight, FILE: c.file_weight, NAMED: c.named_weight,
            NAMED_FILE: c.named_file_weight, MENTIONED: c.mentioned_weight}


_ROWS = ("SELECT s.rowid, s.id, d.path, s.heading_path, s.kind, r.start_line, r.end_line,"
         " r.symbol, d.kind FROM sections s JOIN documents d ON d.doc_id = s.doc_id"
         " LEFT JOIN repoctx_sections r ON r.id = s.id WHERE s.rowid IN ({marks})")
_TEXTS = "SELECT rowid, text FROM sections WHERE rowid IN ({marks})"
_FIRST_SECTIONS = ("SELECT d.path, s.rowid FROM documents d JOIN sections s"
                   " ON s.doc_id = d.doc_id AND s.ordinal = 0 WHERE d.path IN ({marks})")


class TaskHints(NamedTuple):
    """What a pasted task names beyond its reduced words (``task_text``): rare code names
    to look up as definitions (``task_names``), file mentions (``task_paths``), and
    title words that may be file stems (``title_words``)."""

    names: tuple[str, ...] = ()
    mentioned: tuple[str, ...] = ()
    stems: tuple[str, ...] = ()


NO_HINTS = TaskHints()


class SectionInfo(NamedTuple):
    """What a hit needs of its section, without the text (a tuple: hundreds are read per
    query, and a frozen dataclass costs a few times more to build)."""

    rowid: int
    section_id: str
    path: str
    heading_path: str
    kind: str
    start_line: int | None
    end_line: int | None
    symbol: str | None
    doc_kind: str


@dataclass
class Candidate:
    """A section (or a file matched by path alone) with its fused and reranked score."""

    path: str
    score: float
    sources: dict[str, int]
    section: SectionInfo | None = None
    symbol: SymbolMatch | None = None
    text: str = ""
    rerank: RerankSignals | None = field(default=None)
    positions: list[tuple[int, str]] | None = field(default=None, repr=False)


def rerank_words(terms: QueryTerms) -> list[str]:
    """The query's words as the reranker compares them: parts only, light-stemmed."""
    return list(dict.fromkeys(light_stem(w) for w in terms.words if not is_compound(w)
                              and "_" not in w))


def match_words(terms: QueryTerms, vocabulary: Vocabulary, sections: int, *,
                tuning: Tuning = TUNING) -> list[str]:
    """The words the Porter ranking matches: all but the very common ones.

    A word in more than ``bm25_common_share`` of the sections adds little to bm25 but makes
    FTS5 score most of the table; it still counts in the symbol, path and rerank
    stages. When every word is common, all are kept.
    """
    limit = tuning.candidates.bm25_common_share * sections
    rare = [w for w in terms.words if vocabulary.counts.get(w, 0) <= limit]
    return rare or list(terms.words)


def aux_words(terms: QueryTerms, words: list[str], vocabulary: Vocabulary,
              sections: int, *, tuning: Tuning = TUNING) -> list[str]:
    """The words matched in secondary documents (tests, release notes…): only the rare
    ones, unless the query asks for tests or releases, where secondary is primary."""
    if set(terms.words) & (TEST_WORDS | CHANGELOG_WORDS):
        return words
    limit = tuning.candidates.aux_share * sections
    return [w for w in words if vocabulary.counts.get(w, 0) <= limit]


def partial_words(terms: QueryTerms, vocabulary: Vocabulary, *,
                  tuning: Tuning = TUNING) -> list[str]:
    """Words the trigram ranking looks for inside names: identifiers and unknown words.

    A known English word is already met by the Porter ranking and the symbol parts; a
    word the vocabulary lacks (``useEff``) or a typed identifier is likely a partial name.
    """
    out = []
    for word in trigram_terms(terms, tuning=tuning):
        if is_compound(word) or "_" in word or word not in vocabulary:
            out.append(word)
    return out


def _marks(n: int) -> str:
    return ", ".join("?" * n)


def _section_infos(state: SearchState, rowids: Sequence[int]) -> dict[int, SectionInfo]:
    infos: dict[int, SectionInfo] = {}
    for start in range(0, len(rowids), 500):
        chunk = list(rowids[start : start + 500])
        for row in state.conn.execute(_ROWS.format(marks=_marks(len(chunk))), chunk):
            infos[row[0]] = SectionInfo._make(row)
    return infos


def _texts(state: SearchState, rowids: list[int]) -> dict[int, str]:
    if not rowids:
        return {}
    return dict(state.conn.execute(_TEXTS.format(marks=_marks(len(rowids))), rowids))


def gather(state: SearchState, terms: QueryTerms, paths: Sequence[str] | None,
           hints: TaskHints = NO_HINTS, *, tuning: Tuning = TUNING) -> list[Candidate]:
    """Every candidate of ``terms`` under the ``paths`` filter, fused, best first; with
    the definitions and files a pasted task names (``hints``) as lists of their own."""
    filt = path_filter(paths)
    vocabulary = state.vocabulary()
    words = match_words(terms, vocabulary, state.sections(), tuning=tuning)
    knobs, weight = tuning.candidates, weights(tuning)
    pool = knobs.pool
    with sqlite_errors("searching"):
        text = text_ranking(state.conn, words, filt, pool, tuning=tuning)
        aux = text_ranking(state.conn, aux_words(terms, words, vocabulary, state.sections(),
                                                 tuning=tuning),
                           filt, pool // 2, AUX_TABLE, tuning=tuning)
        partial = trigram_ranking(state.conn, partial_words(terms, vocabulary, tuning=tuning),
                                  filt, pool // 2)
        symbols = symbol_ranking(state.conn, terms, filt, pool)
        named = definition_ranking(state.conn, hints.names, filt, knobs.definitions_per_name)
    by_section: dict[int, SymbolMatch] = {}
    for match in named + symbols:
        by_section.setdefault(match.section_rowid, match)
    fused = fuse([(CONTENT, weight[CONTENT], text), (CONTENT, weight[CONTENT], aux),
                  (PARTIAL, weight[PARTIAL], partial),
                  (SYMBOL, weight[SYMBOL], [m.section_rowid for m in symbols]),
                  (NAMED, weight[NAMED], [m.section_rowid for m in named])],
                 tuning.fusion.rrf_k)
    path_ranks = {p: r for r, p in enumerate(
        state.path_index().ranking(terms, paths, knobs.path_pool), start=1)}
    with sqlite_errors("reading sections"):
        infos = _section_infos(state, [int(k) for k in fused])  # type: ignore[call-overload]
    named_files = {p: r for r, p in enumerate(dict.fromkeys(m.path for m in named), start=1)}
    files = named_files_of(state, hints, paths, tuning=tuning)
    file_ranks = {PATH: path_ranks, FILE: files_by_sections([text, aux], infos, tuning=tuning),
                  NAMED_FILE: named_files,
                  MENTIONED: {p: r for r, p in enumerate(files, start=1)}}
    return _with_files(state, fused, infos, by_section, file_ranks, terms, paths, tuning)


def named_files_of(state: SearchState, hints: TaskHints, paths: Sequence[str] | None, *,
                   tuning: Tuning = TUNING) -> list[str]:
    """The files a task names (``hints.mentioned``, resolved by ``PathIndex.resolve``),
    then those a title word names by stem (``PathIndex.by_stem``), under ``paths``."""
    index = state.path_index()
    files = index.resolve(hints.mentioned) if hints.mentioned else []
    if hints.stems:
        stems = index.by_stem(hints.stems, tuning.candidates.stem_most)
        files = list(dict.fromkeys([*files, *stems]))
    return [p for p in files if matches_filter(p, paths)] if paths else files


def files_by_sections(rankings: list[list[int]], infos: dict[int, SectionInfo], *,
                      tuning: Tuning = TUNING) -> dict[str, int]:
    """Files ranked by the summed reciprocal ranks of their sections in ``rankings``.

    A file several of whose sections match the query (different words in different
    methods) is evidence that whole-file BM25 sees and a section ranking does not.
    """
    totals: dict[str, float] = {}
    for ranked in rankings:
        for rank, rowid in enumerate(ranked, start=1):
            info = infos.get(rowid)
            if info is not None:
                totals[info.path] = totals.get(info.path, 0.0) + 1.0 / (tuning.fusion.rrf_k + rank)
    order = sorted(totals, key=lambda p: (-totals[p], p))
    return {path: rank for rank, path in enumerate(order, start=1)}


def _with_files(state: SearchState, fused: dict, infos: dict[int, SectionInfo],
                by_section: dict[int, SymbolMatch], file_ranks: dict[str, dict[str, int]],
                terms: QueryTerms, paths: Sequence[str] | None,
                tuning: Tuning) -> list[Candidate]:
    words = frozenset(terms.words)
    out: list[Candidate] = []
    weight, k = weights(tuning), tuning.fusion.rrf_k
    covered: set[str] = set()
    for item in ordered(fused):
        info = infos.get(item.key)  # type: ignore[call-overload]
        if info is None:
            continue  # a row of the index whose section is gone: stale index, skip it
        cand = Candidate(info.path, item.score, dict(item.sources), info,
                         by_section.get(info.rowid))
        for name, ranks in file_ranks.items():
            rank = ranks.get(info.path)
            if rank is not None:
                cand.score += weight[name] / (k + rank)
                cand.sources[name] = rank
        covered.add(info.path)
        out.append(cand)
    for name in (PATH, MENTIONED):
        out.extend(file_candidates(state, {p: r for p, r in file_ranks[name].items()
                                            if p not in covered}, name,
                                   tuning=tuning))
        covered.update(file_ranks[name])
    priors: dict[str, float] = {}
    data: set[str] = set()
    for cand in out:
        if cand.path not in priors:
            kind = cand.section.doc_kind if cand.section is not None else None
            priors[cand.path] = document_prior(cand.path, words, kind, tuning=tuning)
            if is_data(cand.path, kind):
                data.add(cand.path)
    if not paths:  # a path filter asks for what it names, generated or not
        unnamed = {path for path in priors if not names_path(terms, path)}
        for path in unnamed & data:
            priors[path] *= tuning.documents.data_prior
        for path in state.generated(unnamed):
            priors[path] *= tuning.documents.generated_prior
        for path in state.vendored(unnamed):
            if not is_vendored(path):  # its path's prior says so already
                priors[path] *= tuning.documents.vendor_prior
    for cand in out:
        cand.score *= priors[cand.path]
    out.sort(key=lambda c: (-c.score, c.path, c.section.rowid if c.section else -1))
    return out


def names_path(terms: QueryTerms, path: str) -> bool:
    """True when the query names ``path``'s file: every word of the file's name
    (``initTRPC``, ``abc``, ``cjs`` of ``initTRPC-abc.cjs``) is a word of the query."""
    typed = {word.lower() for word in terms.raw}
    return set(_NAME_WORD.findall(PurePosixPath(path).name.lower())) <= typed


def file_candidates(state: SearchState, ranks: dict[str, int], source: str = PATH, *,
                    tuning: Tuning = TUNING) -> list[Candidate]:
    """Candidates for files matched by path alone (``source``: a path-name match, or a
    file the task names), each shown by its first section."""
    if not ranks:
        return []
    paths = list(ranks)
    with sqlite_errors("reading sections"):
        firsts = dict(state.conn.execute(_FIRST_SECTIONS.format(marks=_marks(len(paths))),
                                         paths))
        infos = _section_infos(state, list(firsts.values()))
    weight = weights(tuning)[source]
    return [Candidate(path, weight / (tuning.fusion.rrf_k + rank), {source: rank},
                      infos.get(firsts.get(path, -1)))
            for path, rank in ranks.items()]


def names_exactly(cand: Candidate, name: str) -> bool:
    """True when the candidate's symbol is ``name`` (``Class.method`` or ``method``), as
    typed: its fully-qualified name is ``name`` or ends in ``.name``."""
    names = [cand.symbol.fq] if cand.symbol is not None else []
    if cand.section is not None and cand.section.symbol:
        names.append(cand.section.symbol)
    return any(n == name or n.endswith("." + name) for n in names)


def exact_first(candidates: list[Candidate], terms: QueryTerms) -> list[Candidate]:
    """For a query that is one name, the candidates declaring exactly that name first
    (each group keeps its order); other queries are left as ranked."""
    if terms.name is None:
        return candidates
    exact = [c for c in candidates if names_exactly(c, terms.name)]
    if not exact:
        return candidates
    return exact + [c for c in candidates if not names_exactly(c, terms.name)]


def qualified_first(candidates: list[Candidate], names: Sequence[str]) -> list[Candidate]:
    """The definition of the first qualified name (``Class.method``) among ``names`` that
    one primary-source file alone defines, first; the rest as ranked.

    A pasted issue naming ``SQLCompiler.get_order_by`` points at the file to edit more
    surely than any word count (82% of such SWE-bench Django tasks).
    """
    for name in names:
        if "." not in name:
            continue
        found = [c for c in candidates if NAMED in c.sources and c.symbol is not None
                 and (c.symbol.fq == name or c.symbol.fq.endswith("." + name))]
        primary = {c.path for c in found if not is_secondary(c.path)}
        if len(primary) != 1:
            continue
        first = next(c for c in found if c.path in primary)
        return [first, *(c for c in candidates if c is not first)]
    return candidates


def rerank(state: SearchState, candidates: list[Candidate], terms: QueryTerms, *,
           tuning: Tuning = TUNING) -> list[Candidate]:
    """The top ``rerank_depth`` candidates rescored by proximity and heading hits."""
    depth = tuning.candidates.rerank_depth
    head, tail = candidates[:depth], candidates[depth:]
    rowids = [c.section.rowid for c in head if c.section is not None]
    with sqlite_errors("reading sections"):
        texts = _texts(state, rowids)
    words = rerank_words(terms)
    pattern = term_pattern(words)
    for cand in head:
        if cand.section is None:
            continue
        cand.text = texts.get(cand.section.rowid, "")
        title = " ".join(filter(None, (cand.section.heading_path, cand.section.symbol,
                                       cand.symbol.fq if cand.symbol else None)))
        cand.positions = match_positions(cand.text, pattern)
        cand.rerank = signals(cand.positions, title, words, pattern, tuning=tuning.rerank)
        if CONTENT in cand.sources or SYMBOL in cand.sources:
            cand.score *= cand.rerank.factor(tuning.rerank)
    head.sort(key=lambda c: (-c.score, c.path, c.section.rowid if c.section else -1))
    return head + tail
