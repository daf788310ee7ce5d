"""retrieval/search/rankings — the four ranked lists search fuses: text, trigram, symbols, paths.

Reads only the ``repoctx_search_*`` tables and ``sections`` / ``documents``. Each ranker
takes sanitised ``QueryTerms`` (never raw user text: every MATCH operand is a quoted
term) and a path filter, and returns its best candidates in rank order. SQL text is
built by pure functions, tested without a database.
"""

from __future__ import annotations

import math
import sqlite3
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from repoctx.retrieval.query import (
    STOPWORDS,
    QueryTerms,
    fts_or,
    light_stem,
    normalise_name,
    split_identifier,
)
from repoctx.retrieval.tuning import TUNING, Tuning

_GLOB_CHARS = "*?["
# Symbol tiers: a multi-word join or typed identifier met exactly, a single word met
# exactly, a private twin of the name asked for (``_trigsimp`` for ``trigsimp``), a
# prefix of the name, then identifier-part coverage.
TIER_JOIN, TIER_EXACT, TIER_NORM, TIER_PREFIX, TIER_PARTS = 0, 1, 2, 3, 4
_KIND_ORDER = {"class": 0, "function": 1, "method": 2, "variable": 3}


@dataclass(frozen=True)
class SymbolMatch:
    """A symbol met by the query: where it is declared and how it matched."""

    fq: str
    name: str
    kind: str
    path: str
    start_line: int
    end_line: int
    section_rowid: int
    tier: int
    covered: int  # query words among its identifier parts


def path_filter(entries: Sequence[str] | None, column: str = "d.path") -> tuple[str, list[str]]:
    """``(sql, params)`` keeping paths under the ``paths`` globs (``1`` when none).

    An entry without glob characters also matches everything below it as a folder.
    """
    if not entries:
        return "1", []
    clauses, params = [], []
    for entry in entries:
        if any(ch in entry for ch in _GLOB_CHARS):
            clauses.append(f"{column} GLOB ?")
            params.append(entry)
        else:
            clauses.append(f"({column} = ? OR {column} GLOB ?)")
            params.extend([entry.rstrip("/"), entry.rstrip("/") + "/*"])
    return "(" + " OR ".join(clauses) + ")", params


def text_sql(filter_sql: str, table: str = "repoctx_search_text", *,
             tuning: Tuning = TUNING) -> str:
    """Porter ranking of ``table``: MATCH ``?``, weighted bm25, the path filter, ``LIMIT ?``."""
    weights = ", ".join(str(w) for w in tuning.hits.text_weights)
    if filter_sql == "1":
        return (f"SELECT rowid FROM {table} WHERE {table} MATCH ?"
                f" ORDER BY bm25({table}, {weights}) LIMIT ?")
    return (f"SELECT t.rowid FROM {table} t JOIN sections s ON s.rowid = t.rowid"
            " JOIN documents d ON d.doc_id = s.doc_id"
            f" WHERE {table} MATCH ? AND {filter_sql}"
            f" ORDER BY bm25({table}, {weights}) LIMIT ?")


def trigram_sql(filter_sql: str) -> str:
    """Trigram ranking over names, paths and headings: MATCH ``?``, ``LIMIT ?``."""
    if filter_sql == "1":
        return ("SELECT rowid FROM repoctx_search_names WHERE repoctx_search_names MATCH ?"
                " ORDER BY bm25(repoctx_search_names, 3.0, 1.0, 2.0) LIMIT ?")
    return ("SELECT n.rowid FROM repoctx_search_names n JOIN sections s ON s.rowid = n.rowid"
            " JOIN documents d ON d.doc_id = s.doc_id"
            f" WHERE repoctx_search_names MATCH ? AND {filter_sql}"
            " ORDER BY bm25(repoctx_search_names, 3.0, 1.0, 2.0) LIMIT ?")


SYMBOL_COLUMNS = "id, fq, name, norm, kind, path, start_line, end_line, section_rowid"


def _on_symbols(filter_sql: str) -> str:
    """The documents' path filter (``path_filter``) applied to the symbols table ``y``."""
    return filter_sql.replace("d.path", "y.path")


def symbols_by_name_sql(n_norms: int, filter_sql: str) -> str:
    """Symbols whose normalised name is one of ``n_norms`` values or in ``[?, ?)``."""
    norms = ", ".join("?" * n_norms) or "NULL"
    return (f"SELECT {SYMBOL_COLUMNS} FROM repoctx_search_symbols y"
            f" WHERE (norm IN ({norms}) OR (norm >= ? AND norm < ?))"
            f" AND {_on_symbols(filter_sql)} LIMIT ?")


def symbols_by_parts_sql(n_parts: int, filter_sql: str) -> str:
    """Symbols holding at least ``?`` of ``n_parts`` identifier parts, most parts first."""
    parts = ", ".join("?" * n_parts) or "NULL"
    return (f"SELECT {SYMBOL_COLUMNS}, c.n FROM (SELECT symbol_id, count(*) AS n"
            f" FROM repoctx_search_symbol_parts WHERE part IN ({parts}) GROUP BY symbol_id"
            " HAVING n >= ?) c JOIN repoctx_search_symbols y ON y.id = c.symbol_id"
            f" WHERE {_on_symbols(filter_sql)}"
            " ORDER BY c.n DESC, length(y.name), y.fq LIMIT ?")


def text_ranking(conn: sqlite3.Connection, words: Sequence[str], filt: tuple[str, list[str]],
                 limit: int, table: str = "repoctx_search_text", *,
                 tuning: Tuning = TUNING) -> list[int]:
    """Section rowids of ``table`` by weighted Porter bm25 over ``words`` (any of them)."""
    match = fts_or(tuple(words))
    if match is None:
        return []
    return [row[0] for row in conn.execute(text_sql(filt[0], table, tuning=tuning),
                                           (match, *filt[1], limit))]


def trigram_terms(terms: QueryTerms, *, tuning: Tuning = TUNING) -> list[str]:
    """Words long enough to match names by substring (partial identifiers)."""
    raw = [t.lower() for t in terms.raw if t.lower() not in STOPWORDS]
    return [t for t in dict.fromkeys(raw) if len(t) >= tuning.hits.trigram_min]


def trigram_ranking(conn: sqlite3.Connection, words: Sequence[str],
                    filt: tuple[str, list[str]], limit: int) -> list[int]:
    """Section rowids whose names, path or headings contain one of ``words``."""
    match = fts_or(tuple(words))
    if match is None:
        return []
    return [row[0] for row in conn.execute(trigram_sql(filt[0]), (match, *filt[1], limit))]


def _prefix(terms: QueryTerms) -> str | None:
    """The longest typed identifier or join, to match name prefixes (None when short)."""
    candidates = [normalise_name(t) for t in terms.identifiers] + list(terms.joins[:1])
    candidates = [c for c in candidates if len(c) >= 6]
    return max(candidates, key=len) if candidates else None


def symbol_ranking(conn: sqlite3.Connection, terms: QueryTerms,
                   filt: tuple[str, list[str]], limit: int) -> list[SymbolMatch]:
    """Symbols in tier order (exact join > exact word > prefix > parts), best first."""
    words = [w for w in terms.words if w not in STOPWORDS]
    asked = terms.name.rsplit(".", 1)[-1] if terms.name else None
    joins = set(terms.joins) | {normalise_name(i) for i in terms.identifiers}
    norms = sorted(joins | {normalise_name(w) for w in words})
    parts = sorted({light_stem(w) for w in words})
    prefix = _prefix(terms) or "\x00"
    found: dict[int, SymbolMatch] = {}
    rows = conn.execute(symbols_by_name_sql(len(norms), filt[0]),
                        (*norms, prefix, prefix + "\uffff", *filt[1], 4 * limit))
    for sid, fq, name, norm, kind, path, start, end, rowid in rows:
        tier = (TIER_PREFIX if norm not in norms
                else TIER_NORM if name.startswith("_") and name != asked
                else TIER_JOIN if norm in joins else TIER_EXACT)
        covered = len(set(parts) & {light_stem(p) for p in split_identifier(name)})
        found[sid] = SymbolMatch(fq, name, kind, path, start, end, rowid, tier, covered)
    if parts:
        need = 2 if len(parts) >= 2 else 1
        rows = conn.execute(symbols_by_parts_sql(len(parts), filt[0]),
                            (*parts, need, *filt[1], limit))
        for sid, fq, name, _norm, kind, path, start, end, rowid, n in rows:
            if sid not in found:
                found[sid] = SymbolMatch(fq, name, kind, path, start, end, rowid, TIER_PARTS, n)
    return sorted(found.values(), key=_symbol_order)[:limit]


def definitions_sql(filter_sql: str) -> str:
    """Symbols whose normalised name is ``?``, under the path filter, ``LIMIT ?``."""
    return (f"SELECT {SYMBOL_COLUMNS} FROM repoctx_search_symbols y WHERE norm = ?"
            f" AND {_on_symbols(filter_sql)} LIMIT ?")


def definition_ranking(conn: sqlite3.Connection, names: Sequence[str],
                       filt: tuple[str, list[str]], per_name: int) -> list[SymbolMatch]:
    """The definitions of ``names`` (simple, or qualified: ``Outer.Inner``), name by name
    in the order given, at most ``per_name`` each: a simple name met by a symbol's own
    name (case and underscores aside), a qualified one by the end of its fq name."""
    out: list[SymbolMatch] = []
    for name in names:
        simple = name.rsplit(".", 1)[-1]
        norm = normalise_name(simple)
        rows = conn.execute(definitions_sql(filt[0]), (norm, *filt[1], 4 * per_name))
        found = []
        for _sid, fq, sname, _norm, kind, path, start, end, rowid in rows:
            if "." in name and not (fq == name or fq.endswith("." + name)):
                continue
            found.append(SymbolMatch(fq, sname, kind, path, start, end, rowid, TIER_EXACT,
                                     len(split_identifier(sname))))
        found.sort(key=lambda m: (_KIND_ORDER.get(m.kind, 4), m.path.count("/"), m.fq))
        out.extend(found[:per_name])
    return out


def _symbol_order(m: SymbolMatch) -> tuple:
    """Tier, then query words covered, then the fewest parts the query did not ask for."""
    extra = len(split_identifier(m.name)) - m.covered
    return (m.tier, -m.covered, extra, _KIND_ORDER.get(m.kind, 4), len(m.name), m.fq)


class PathIndex:
    """Light-stemmed path words → document paths, for path-name matches (built once)."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.paths = list(paths)
        self._suffixes: dict[str, list[str]] | None = None
        self._stems: dict[str, list[str]] | None = None
        self._by_word: dict[str, list[str]] = defaultdict(list)
        for path in self.paths:
            for word in path_word_set(path):
                self._by_word[word].append(path)

    def resolve(self, mentioned: Sequence[str], most: int = 3) -> list[str]:
        """The documents each mention names, in mention order: a path by its longest
        suffix that ends some documents' paths (``/site-packages/pkg/a.py`` → ``pkg/a.py``),
        a slash-separated module (``pkg/sql/compiler``) as a ``.py`` file or a package's
        ``__init__.py``, trying shorter prefixes (``pkg/a/func`` → ``pkg/a.py``); a
        mention more than ``most`` documents end with names none."""
        if self._suffixes is None:
            self._suffixes = defaultdict(list)
            for path in self.paths:
                parts = path.split("/")
                for start in range(len(parts)):
                    self._suffixes["/".join(parts[start:])].append(path)
        out: dict[str, None] = {}
        for mention in mentioned:
            for found in _mention_matches(mention, self._suffixes):
                if len(found) <= most:
                    out.update(dict.fromkeys(found))
                break
        return list(out)

    def by_stem(self, words: Sequence[str], most: int = 2) -> list[str]:
        """The documents whose file stem is one of ``words`` (case aside), word by word;
        a word more than ``most`` documents are named after names none."""
        if self._stems is None:
            self._stems = defaultdict(list)
            for path in self.paths:
                self._stems[PurePosixPath(path).stem.lower()].append(path)
        out: dict[str, None] = {}
        for word in words:
            found = self._stems.get(word.lower(), [])
            if len(found) <= most:
                out.update(dict.fromkeys(found))
        return list(out)

    def ranking(self, terms: QueryTerms, filt: Sequence[str] | None, limit: int) -> list[str]:
        """Paths in order of the summed rarity of the query words their names hold."""
        n = max(1, len(self.paths))
        score: dict[str, float] = defaultdict(float)
        for word in {light_stem(w) for w in terms.words}:
            found = self._by_word.get(word, [])
            if found:
                idf = math.log(1 + n / len(found))
                for path in found:
                    score[path] += idf
        ranked = sorted(score, key=lambda p: (-score[p], len(p), p))
        if filt:
            ranked = [p for p in ranked if matches_filter(p, filt)]
        return ranked[:limit]


def _mention_matches(mention: str, suffixes: dict[str, list[str]]) -> Iterator[list[str]]:
    """The documents a mention may name, most specific reading first (``resolve``)."""
    parts = [p for p in mention.split("/") if p and p != "."]
    if not parts:
        return
    if "." in parts[-1]:
        for start in range(len(parts)):
            found = suffixes.get("/".join(parts[start:]))
            if found:
                yield found
                return
        return
    for end in range(len(parts), 1, -1):
        for start in range(end - 1):
            head = "/".join(parts[start:end])
            found = suffixes.get(head + ".py") or suffixes.get(head + "/__init__.py")
            if found:
                yield found
                return


def path_word_set(path: str) -> set[str]:
    """The light-stemmed words of a path's folders and file stem."""
    *folders, name = path.split("/")
    dot = name.rfind(".")
    stem = name[:dot] if 0 < dot < len(name) - 1 else name  # ``PurePosixPath.stem``
    words: set[str] = set()
    for part in (*folders, stem):
        if part:
            words |= _name_words(part)
    return words


@lru_cache(maxsize=1 << 16)
def _name_words(name: str) -> frozenset[str]:
    """The light-stemmed words of one folder name or file stem (folders repeat across a
    tree's paths: each is split once)."""
    words = {light_stem(p) for p in split_identifier(name)}
    if name.isalnum():
        words.add(light_stem(name))
    return frozenset(words)


def matches_filter(path: str, entries: Sequence[str]) -> bool:
    """Python twin of :func:`path_filter` (SQLite GLOB semantics, case-sensitive)."""
    from fnmatch import fnmatchcase

    for entry in entries:
        if any(ch in entry for ch in _GLOB_CHARS):
            if fnmatchcase(path, entry):
                return True
        elif path == entry.rstrip("/") or path.startswith(entry.rstrip("/") + "/"):
            return True
    return False
