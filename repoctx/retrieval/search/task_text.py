"""retrieval/search/task_text — a pasted task (an issue, a traceback, code) reduced to a bounded
query.

An agent's task is a title, prose, code samples, tracebacks and often an issue
template's boilerplate. Search matches a bounded number of words, so the whole text is
read for its signals and reduced to the best few:

- boilerplate is dropped first: HTML comments, checklist lines (``- [ ]``), table rows
  (version tables), pasted screenshots (``<img …>``, ``![…](…)``), URLs;
- each word is weighed by where it stands: the title (first line), traceback frames
  (the file's name and the function), file paths, error lines (``FooError: message``),
  code (backticks, fenced or indented blocks, ``def``/``class`` names), dotted and
  compound identifiers, and plain prose;
- and by how well it discriminates in *this* repository: the index's own section counts
  (``repoctx_search_vocab``), not a fixed list. A word in none is dropped; one in more
  than ``TextTuning.common_share`` of the sections comes after every rarer word.

``quoted_phrases`` picks the text a task quotes (quoted strings, error messages, log
lines) as runs of plain words, to be looked up literally in the code that prints them.
``reduce_query`` returns at most ``TextTuning.reduced_terms`` words as one query string, which
``query.sanitise_query`` then takes like any typed query. ``task_names`` picks the names
worth expanding to definitions: those rare in the index; a dunder or common name only
when qualified (``Foo.__init__``). Pure, apart from ``index_stats`` reading an open
export's vocabulary and symbol table; bounded
work: the text is at most ``MAX_TEXT_CHARS`` and every pattern is linear.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from repoctx.errors import ToolError
from repoctx.retrieval.query import (
    MAX_QUERY_CHARS,
    MAX_QUERY_TERMS,
    MAX_TEXT_CHARS,
    STOPWORDS,
    QueryTerms,
    is_compound,
    normalise_name,
    sanitise_query,
    split_identifier,
    typed_words,
)
from repoctx.retrieval.search.issue_templates import without_boilerplate
from repoctx.retrieval.search.state import SearchState, sqlite_errors
from repoctx.retrieval.tuning import TUNING, TextTuning, Tuning

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_CHECKLIST = re.compile(r"^[ \t]*(?:[-*+]|\d+\.)[ \t]*\[[ xX]?\].*$", re.M)
_TABLE_ROW = re.compile(r"^[ \t]*\|.*$", re.M)
_URL = re.compile(r"\b(?:https?|ftp)://\S+")
_IMAGE = re.compile(r"<img\b[^>]{0,2000}>|!\[[^\]\n]{0,300}\]\([^)\n]{0,2000}\)", re.I)
"""A pasted screenshot: its markup (``width``, ``alt``, ``src``) matches HTML templates."""
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.M)
_FRAME = re.compile(r"File \"([^\"\n]{1,300})\", line \d+, in ([A-Za-z_]\w{0,100})")
_PATH_TEXT = re.compile(r"(?<![\w/.])(?:[\w.-]{1,100}/){1,20}[\w.-]{1,100}\.[A-Za-z]{1,5}\b")
_ERROR_LINE = re.compile(r"\b([A-Z]\w{0,80}(?:Error|Exception|Warning|Exit|Interrupt))\b"
                         r"(?::[ \t]*([^\n]{0,300}))?")
_BACKTICK = re.compile(r"`([^`\n]{1,200})`")
_DECL = re.compile(r"\b(?:def|class)[ \t]+([A-Za-z_]\w{0,100})")
DOTTED = re.compile(r"(?<![\w.])[A-Za-z_]\w{0,100}(?:\.[A-Za-z_]\w{0,100}){1,8}")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,100}")
_DUNDER = re.compile(r"^__\w+__$")
CALLED = re.compile(r"(?<![\w.])([A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*)\(")
"""A class-like name called as written: capitalised, not all capitals, ``(`` right after."""
_QUOTED = re.compile(r"\"([^\"\n]{8,300})\"|(?<!\w)'([^'\n]{8,300})'(?!\w)|`([^`\n]{8,300})`")
_LOG_LINE = re.compile(r"\b(?:WARNING|ERROR|CRITICAL|FATAL|INFO|DEBUG|Warning|Error)\b[:\]][ \t]*"
                       r"([^\n]{8,300})")
_RUN = re.compile(r"[A-Za-z]+(?:[ \t]+[A-Za-z]+){2,}")


@dataclass(frozen=True)
class IndexStats:
    """What the index says about words and names: section counts and definition counts."""

    sections: int
    word_sections: Callable[[str], int]
    """Sections holding a (lowercase) word or identifier part; 0 when unknown."""
    definitions: Callable[[str], int] = lambda name: 0
    """Definitions of a simple name (normalised lookup), 0 when none."""
    text: TextTuning = TUNING.text
    """How a task's text is weighed against these statistics."""

    def common(self, word: str) -> bool:
        """True when ``word`` is in too many sections to tell files apart."""
        return self.word_sections(word) > self.text.common_share * max(1, self.sections)

    def idf(self, word: str) -> float:
        """Inverse section frequency of ``word`` (0 when the index never saw it)."""
        n = self.word_sections(word)
        return math.log((self.sections + 1) / n) if n else 0.0


def check_text(text: object, argument: str) -> str:
    """``text`` when it is a string of at most ``MAX_TEXT_CHARS``; else a ``ToolError``."""
    if not isinstance(text, str):
        raise ToolError(f"{argument}: must be a string (got {type(text).__name__})")
    if len(text) > MAX_TEXT_CHARS:
        raise ToolError(f"{argument}: at most {MAX_TEXT_CHARS:,} characters (got "
                        f"{len(text):,}); pass the title, the error and the traceback")
    return text


def fits_as_typed(text: str) -> bool:
    """True when ``text`` is short enough to be searched as typed (no reduction)."""
    return len(text) <= MAX_QUERY_CHARS and len(typed_words(text)) <= MAX_QUERY_TERMS


def query_terms(text: str, argument: str, stats: Callable[[], IndexStats]) -> QueryTerms:
    """The sanitised terms of a checked ``text``: as typed when it fits a query, else its
    reduction (``reduce_query``) with the index statistics ``stats()`` returns."""
    if fits_as_typed(text):
        return sanitise_query(text, argument)
    return sanitise_query(reduce_query(text, stats()), argument)


def pasted_task(text: str, state: Callable[[], SearchState]) -> str:
    """``text`` without the boilerplate of the repository's issue templates
    (``issue_templates``; ``state()`` is the open export) when it is a pasted task, too
    long to search as typed."""
    if fits_as_typed(text):
        return text
    opened = state()
    return without_boilerplate(text, opened.issue_template()) if opened.indexed else text


NO_STATS = IndexStats(1 << 20, lambda word: 1)
"""Statistics of an index that is not there: every word equally rare, so a term's place
and repeats decide."""


def index_stats(state: SearchState, tuning: Tuning = TUNING) -> IndexStats:
    """The statistics of an open export's search index (its vocabulary and symbols).

    Built once per opened export and kept for the next call on it (a context call asks
    for them from search, expansion and packing): an open export never changes, so its
    definition counts, looked up as names come, stay valid while it is the latest one.
    """
    global _LAST_STATS
    if not state.indexed:
        return NO_STATS if tuning.text is NO_STATS.text else replace(NO_STATS, text=tuning.text)
    last = _LAST_STATS
    if last is not None and last[0] is state:
        stats = last[1]
        return stats if tuning.text is stats.text else replace(stats, text=tuning.text)
    counts = state.vocabulary().counts
    conn = state.conn
    cache: dict[str, int] = {}

    def definitions(name: str) -> int:
        norm = normalise_name(name)
        if norm not in cache:
            if len(cache) >= _MAX_CACHED_NAMES:
                cache.clear()
            with sqlite_errors("counting definitions"):
                (cache[norm],) = conn.execute(_DEFINITIONS, (norm,)).fetchone()
        return cache[norm]

    stats = IndexStats(state.sections(), lambda word: counts.get(word, 0), definitions,
                       tuning.text)
    _LAST_STATS = (state, stats)
    return stats


_DEFINITIONS = "SELECT count(*) FROM repoctx_search_symbols WHERE norm = ?"
_MAX_CACHED_NAMES = 65_536
"""Definition counts kept per export; past this many names the cache starts again."""
_LAST_STATS: tuple[SearchState, IndexStats] | None = None
"""The statistics of the export last asked about (``index_stats``)."""


def strip_boilerplate(text: str) -> str:
    """``text`` without HTML comments, checklist lines, table rows, images and URLs."""
    for pattern in (_COMMENT, _CHECKLIST, _TABLE_ROW, _IMAGE, _URL):
        text = pattern.sub(" ", text)
    return text


def _code_blocks(text: str) -> str:
    """The text of fenced blocks and of lines indented as code (4 spaces or a tab)."""
    parts = _FENCE.split(text)
    fenced = parts[1::2]
    indented = [line for line in text.splitlines() if line.startswith(("    ", "\t"))
                and line.strip()]
    return "\n".join(fenced + indented)


def _code_terms(text: str) -> set[str]:
    """Words written as code: compound identifiers, backticked, in code blocks, declared,
    parts of dotted names, traceback functions."""
    words = {w for w in _WORD.findall(text) if is_compound(w)}
    for code in (_code_blocks(text), *_BACKTICK.findall(text), *DOTTED.findall(text)):
        words.update(_WORD.findall(code))
    words.update(_DECL.findall(text))
    words.update(function for _, function in _FRAME.findall(text))
    return words


def signals(text: str, tuning: TextTuning = TUNING.text) -> dict[str, float]:
    """Each term of ``text`` (as written: identifiers keep their case) with the weight of
    the strongest place it appears in (``TextTuning``'s place weights); boilerplate
    already stripped."""
    found: dict[str, float] = {}
    title_at, frame_at, path_at = tuning.title_place, tuning.frame_place, tuning.path_place
    error_at, code_at, name_at, prose_at = (tuning.error_place, tuning.code_place,
                                            tuning.name_place, tuning.prose_place)

    def add(term: str, weight: float) -> None:
        term = term.strip("_.")
        if len(term) >= 2 and found.get(term, 0.0) < weight:
            found[term] = weight

    for word in _WORD.findall(text):
        add(word, name_at if is_compound(word) else prose_at)
    title = next((line for line in text.splitlines() if line.strip()), "")
    for word in _WORD.findall(title):
        add(word, title_at)
    for code in (_code_blocks(text), *_BACKTICK.findall(text)):
        for word in _WORD.findall(code):
            add(word, max(code_at, found.get(word, 0.0)))
    for name in _DECL.findall(text):
        add(name, name_at)
    for dotted in DOTTED.findall(text):
        for word in dotted.split("."):
            add(word, name_at)
    for path in _PATH_TEXT.findall(text):
        for word in _WORD.findall(path.rsplit(".", 1)[0].rsplit("/", 2)[-1]):
            add(word, path_at)
    for path, function in _FRAME.findall(text):
        stem = path.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
        add(stem, path_at)
        add(function, frame_at)
    for error, message in _ERROR_LINE.findall(text):
        add(error, error_at)
        for word in _WORD.findall(message or ""):
            add(word, max(prose_at * 1.5, found.get(word, 0.0)))
    return found


def _score(term: str, weight: float, count: int, stats: IndexStats) -> float:
    """How much ``term`` should drive the search: its place, repeats and rarity.

    A prose word's rarity counts only up to that of a word in ``prose_rarity`` sections:
    a word the code barely holds (a name in a credits file) tells less than a rare name.
    """
    knobs = stats.text
    parts = split_identifier(term) if is_compound(term) else [term.lower()]
    idfs = [stats.idf(p) * (knobs.common_weight if stats.common(p) else 1.0)
            for p in parts if p not in STOPWORDS]
    idf = max(idfs, default=0.0)
    if weight <= knobs.prose_place:
        idf = min(idf, math.log((stats.sections + 1) / knobs.prose_rarity))
    return weight * (1.0 + math.log(count)) * idf


def term_weights(text: str, stats: IndexStats) -> dict[str, float]:
    """Each discriminating term of ``text`` (as written) with its score: its place,
    repeats and rarity (``_score``); boilerplate, stopwords and unknown words out."""
    text = strip_boilerplate(text)
    counts: dict[str, int] = {}
    for word in _WORD.findall(text):
        counts[word] = counts.get(word, 0) + 1
    scored = {}
    for term, weight in signals(text, stats.text).items():
        if term.lower() in STOPWORDS:
            continue
        score = _score(term, weight, counts.get(term, 1), stats)
        if score > 0:
            scored[term] = score
    return scored


def code_terms(text: str) -> set[str]:
    """The words ``text`` writes as code (identifiers, backticked, in code blocks,
    declared, dotted, traceback functions), boilerplate stripped first."""
    return _code_terms(strip_boilerplate(text))


def ranked_terms(text: str, stats: IndexStats) -> list[str]:
    """The discriminating terms of ``text``, best first (boilerplate and common words out)."""
    scored = [(score, term) for term, score in term_weights(text, stats).items()]
    scored.sort(key=lambda item: -item[0])
    seen: set[str] = set()
    out = []
    for _, term in scored:
        if term.lower() not in seen:
            seen.add(term.lower())
            out.append(term)
    return out


def reduce_query(text: str, stats: IndexStats, most: int | None = None) -> str:
    """``text`` reduced to its best ``most`` terms (``reduced_terms`` by default), in the
    order they appear.

    A text with no discriminating term keeps its first words, so the query is never
    empty when the text has words.
    """
    best = ranked_terms(text, stats)
    budget, kept = MAX_QUERY_CHARS, []
    for term in best[:most or stats.text.reduced_terms]:
        if len(term) + 1 > budget:
            break
        kept.append(term)
        budget -= len(term) + 1
    if not kept:
        first = dict.fromkeys(_WORD.findall(text))
        return " ".join(list(first)[:MAX_QUERY_TERMS])[:MAX_QUERY_CHARS]
    order = {t: i for i, t in enumerate(dict.fromkeys(_WORD.findall(strip_boilerplate(text))))}
    kept.sort(key=lambda t: order.get(t, len(order)))
    return " ".join(kept)


_ANY_PATH = re.compile(r"(?:[\w.-]{1,100}[/\\]){1,30}[\w-]{1,100}\.[A-Za-z]{1,5}\b")
_MODULE = re.compile(r"(?<![\w.])[a-z_][a-z0-9_]{0,60}(?:\.[a-z_][a-z0-9_]{0,60}){2,12}")
MAX_PATHS = 40
"""Most file mentions a task contributes (a traceback repeats its frames)."""


def task_paths(text: str) -> list[str]:
    """The files a task names, as written, most mentioned first (ties: the later mention
    first, so a traceback's deepest frame leads): paths (``pkg/sql/compiler.py``,
    traceback frames) and dotted module names (``pkg.sql.compiler``, as ``pkg/sql/
    compiler``: the caller resolves them against the repository's files)."""
    text = strip_boilerplate(text)
    found = [(m.start(), m.group().replace("\\", "/")) for m in _ANY_PATH.finditer(text)]
    found += [(m.start(), m.group().replace(".", "/")) for m in _MODULE.finditer(text)]
    counts: dict[str, int] = {}
    last: dict[str, int] = {}
    for at, path in found:
        counts[path] = counts.get(path, 0) + 1
        last[path] = max(at, last.get(path, at))
    ordered = sorted(counts, key=lambda p: (-counts[p], -last[p]))
    return ordered[:MAX_PATHS]


def title_words(text: str) -> list[str]:
    """The words of a task's title (its first non-blank line, boilerplate stripped) that
    may name a file by its stem (``inspectdb``, ``autoreload``): 4 characters or more,
    no stopwords, in title order."""
    title = next((line for line in strip_boilerplate(text).splitlines() if line.strip()), "")
    words = (w.strip("_") for w in _WORD.findall(title))
    return list(dict.fromkeys(w for w in words if len(w) >= 4 and w.lower() not in STOPWORDS))


def task_names(text: str, stats: IndexStats) -> list[str]:
    """Names in ``text`` worth looking up as definitions, best first.

    Dotted names keep their qualifier (``Foo.__init__``); a simple name counts when it
    looks like code (compound, backticked, declared, a traceback frame) and is rare in
    the index: not a dunder, at most ``rare_definitions`` definitions, and not a common
    word of the repository unless the task calls it as a class (``Poly(x)``).
    """
    text = strip_boilerplate(text)
    weights = signals(text, stats.text)
    code = _code_terms(text)
    called = set(CALLED.findall(text))
    names: dict[str, float] = {}
    for dotted in DOTTED.findall(text):
        head, _, last = dotted.rpartition(".")
        qualifier = head.rsplit(".", 1)[-1]
        if qualifier[:1].isupper() and stats.definitions(last):
            names.setdefault(f"{qualifier}.{last}", stats.text.name_place + 1)
    for term, weight in weights.items():
        if term not in code or _DUNDER.match(term):
            continue
        n = stats.definitions(term)
        if not n or n > stats.text.rare_definitions:
            continue
        if not is_compound(term) and stats.common(term.lower()) and term not in called:
            continue  # a common word, unless the task builds an instance of it
        names.setdefault(term, weight)
    ordered = sorted(names, key=lambda name: -names[name])  # stable: text order on ties
    return ordered[:stats.text.max_names]


def quoted_phrases(text: str, tuning: TextTuning = TUNING.text) -> list[str]:
    """The runs of plain words ``text`` quotes, as written, in text order, at most
    ``max_phrases``: from quoted and backticked strings, the message of an error line
    (``ValueError: ...``) and log lines (``WARNING: ...``).

    A run is ``min_phrase_words`` or more letters-only words separated by blanks, so the
    values a message was formatted with (a quoted name, a number, a path) split it into
    the pieces the code holds literally; a run of stopwords alone says nothing."""
    text = strip_boilerplate(text)
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]
    messages = [message for _, message in _ERROR_LINE.findall(text) if message]
    found: dict[str, None] = {}
    for piece in (*messages, *_LOG_LINE.findall(text), *quoted):
        for run in _RUN.findall(piece):
            words = run.split()
            if (len(words) >= tuning.min_phrase_words
                    and sum(w.lower() not in STOPWORDS for w in words) >= 2):
                found.setdefault(" ".join(words), None)
    return list(found)[:tuning.max_phrases]
