"""retrieval/search_index — the search tables repoctx adds inside a ContextPull export.

Writes only ``repoctx_search_*`` tables; ContextPull's own tables and the export's side
tables are read, never changed (DESIGN §5: readers ignore extra tables). Rows are keyed
by the section's rowid, which the writer shares between ``sections`` and
``sections_fts`` and keeps across a copy-and-patch re-export.

- ``repoctx_search_text`` / ``repoctx_search_text_aux``: Porter FTS5 over sections,
  identifiers split (``query.expand_for_index``), columns name / path / heading / body so
  a query can weight them with ``bm25()``. Sections of secondary documents (tests,
  vendored code, catalogues, release notes: ``priors.is_secondary``) go to the ``_aux``
  table: ``bm25()`` costs about a microsecond per matching row, and in Django they are
  over half the rows, so the main ranking scores half as many.
- ``repoctx_search_names``: trigram FTS5 over names, paths and headings only (a
  full-text trigram table costs ~6.5x the build time).
- ``repoctx_search_symbols`` + ``_symbol_parts``: every Python declaration with its
  normalised name and light-stemmed identifier parts, for exact / prefix / part matches.
  The declarations are the store's (``declared``) when it holds the document's bytes,
  else extracted from the document's sections (``section_symbols``): a symbol's lines
  are its definition's, and the section it points at holds its first line.
- ``repoctx_search_vocab``: words and identifier parts with their section counts, for
  typo correction. Grow-only between full rebuilds: a stale word costs one fruitless
  correction, never a wrong hit.
- ``repoctx_search_rows`` / ``repoctx_search_docs``: what the index was built from (section
  id per rowid, SHA-256 per path), so an update finds every drifted document itself.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import groupby
from pathlib import PurePosixPath

from repoctx.reconcile import Declaration
from repoctx.retrieval.priors import is_secondary
from repoctx.retrieval.query import expand_for_index, light_stem, normalise_name, split_identifier
from repoctx.retrieval.section_symbols import (
    FoundSymbol,
    SectionSpan,
    document_symbols,
    extracted,
    place,
)

Declared = Callable[[str, str], "dict[str, Declaration] | None"]
"""``(path, sha256)`` -> the store's declarations of ``path`` when it indexed exactly
those bytes, else None (the symbols are then extracted from the exported text)."""

PORTER_TOKENIZE = "porter unicode61 remove_diacritics 2 tokenchars '_'"
TEXT_TABLE, AUX_TABLE = "repoctx_search_text", "repoctx_search_text_aux"
FTS_TABLES = (TEXT_TABLE, AUX_TABLE, "repoctx_search_names")
TABLES = (TEXT_TABLE, AUX_TABLE, "repoctx_search_names", "repoctx_search_symbols",
          "repoctx_search_symbol_parts", "repoctx_search_vocab", "repoctx_search_rows",
          "repoctx_search_docs")
_VOCAB_WORD = re.compile(r"[A-Za-z][a-z]{2,24}|[A-Z]{3,24}")
_BATCH = 2000

DDL = (
    *(f"CREATE VIRTUAL TABLE {table} USING fts5(name, path, heading, body,"
      f' tokenize = "{PORTER_TOKENIZE}")' for table in (TEXT_TABLE, AUX_TABLE)),
    "CREATE VIRTUAL TABLE repoctx_search_names USING fts5(name, path, heading,"
    " tokenize = 'trigram')",
    "CREATE TABLE repoctx_search_rows(rowid INTEGER PRIMARY KEY, section_id TEXT NOT NULL)",
    "CREATE TABLE repoctx_search_docs(path TEXT PRIMARY KEY, sha256 TEXT NOT NULL)",
    "CREATE TABLE repoctx_search_symbols(id INTEGER PRIMARY KEY, fq TEXT NOT NULL,"
    " name TEXT NOT NULL, norm TEXT NOT NULL, kind TEXT NOT NULL, path TEXT NOT NULL,"
    " start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, section_rowid INTEGER NOT NULL)",
    "CREATE INDEX repoctx_search_symbols_norm ON repoctx_search_symbols(norm)",
    "CREATE INDEX repoctx_search_symbols_section ON repoctx_search_symbols(section_rowid)",
    "CREATE TABLE repoctx_search_symbol_parts(part TEXT NOT NULL, symbol_id INTEGER NOT NULL,"
    " PRIMARY KEY(part, symbol_id)) WITHOUT ROWID",
    "CREATE TABLE repoctx_search_vocab(term TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID",
)
_SECTIONS = (
    "SELECT s.rowid, s.id, d.path, d.kind, s.heading_path, s.text, r.start_line, r.end_line,"
    " r.symbol, d.sha256"
    " FROM sections s JOIN documents d ON d.doc_id = s.doc_id"
    " LEFT JOIN repoctx_sections r ON r.id = s.id"
)
_STALE_ROWS = (
    "SELECT m.rowid FROM repoctx_search_rows m LEFT JOIN sections s ON s.rowid = m.rowid"
    " WHERE s.id IS NULL OR s.id != m.section_id OR s.doc_id IN (SELECT doc_id FROM {ids})"
)
_DRIFTED_DOCS = (
    "SELECT d.doc_id FROM documents d LEFT JOIN repoctx_search_docs x ON x.path = d.path"
    " WHERE x.sha256 IS NULL OR x.sha256 != d.sha256"
)


@dataclass(frozen=True)
class SectionRow:
    """What the index reads of one exported section."""

    rowid: int
    section_id: str
    path: str
    doc_kind: str
    heading_path: str
    text: str
    start_line: int | None
    end_line: int | None
    symbol: str | None
    sha256: str = ""

    def span(self) -> SectionSpan:
        """The section as ``section_symbols`` places symbols in it."""
        return SectionSpan(self.rowid, self.text, self.start_line, self.end_line)


@contextmanager
def _savepoint(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("SAVEPOINT repoctx_search")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK TO repoctx_search")
        conn.execute("RELEASE repoctx_search")
        raise
    conn.execute("RELEASE repoctx_search")


def has_search_index(conn: sqlite3.Connection) -> bool:
    """True when every search table exists in the database on ``conn``."""
    names = {row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE name LIKE 'repoctx_search_%'")}
    return all(table in names for table in TABLES)


def build_search_index(conn: sqlite3.Connection, changed_doc_ids: set[int] | None = None,
                       declared: Declared | None = None) -> None:
    """Create or update the search tables inside the export open on ``conn``.

    ``None`` rebuilds everything. Otherwise the rows of ``changed_doc_ids`` are deleted
    and inserted again, together with any document whose SHA-256 drifted from what the
    index was built from and any row whose section is gone; one savepoint holds it all.
    ``declared`` supplies a document's symbols from the store (see ``Declared``).
    """
    with _savepoint(conn):
        if changed_doc_ids is None or not has_search_index(conn):
            _rebuild(conn, declared)
        else:
            _update(conn, changed_doc_ids, declared)


def _rebuild(conn: sqlite3.Connection, declared: Declared | None) -> None:
    for table in TABLES:
        conn.execute(f"DROP TABLE IF EXISTS {table}")
    for statement in DDL:
        conn.execute(statement)
    _insert(conn, _read_sections(conn, _SECTIONS), declared)
    conn.execute("INSERT INTO repoctx_search_docs(path, sha256) SELECT path, sha256 FROM documents")
    for table in FTS_TABLES:
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")


def _update(conn: sqlite3.Connection, changed: set[int], declared: Declared | None) -> None:
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS repoctx_search_changed"
                 "(doc_id INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM repoctx_search_changed")
    conn.executemany("INSERT OR IGNORE INTO repoctx_search_changed VALUES (?)",
                     ((int(i),) for i in changed))
    conn.execute(f"INSERT OR IGNORE INTO repoctx_search_changed {_DRIFTED_DOCS}")
    stale = [row[0] for row in conn.execute(_STALE_ROWS.format(ids="repoctx_search_changed"))]
    _delete_rows(conn, stale)
    missing = (f"{_SECTIONS} WHERE s.doc_id IN (SELECT doc_id FROM repoctx_search_changed)"
               " OR s.rowid NOT IN (SELECT rowid FROM repoctx_search_rows)")
    _insert(conn, _read_sections(conn, missing), declared)
    conn.execute("DELETE FROM repoctx_search_docs")
    conn.execute("INSERT INTO repoctx_search_docs(path, sha256) SELECT path, sha256 FROM documents")
    conn.execute("DROP TABLE repoctx_search_changed")


def _delete_rows(conn: sqlite3.Connection, rowids: list[int]) -> None:
    rows = [(rowid,) for rowid in rowids]
    for table in (*FTS_TABLES, "repoctx_search_rows"):
        conn.executemany(f"DELETE FROM {table} WHERE rowid = ?", rows)
    conn.executemany("DELETE FROM repoctx_search_symbol_parts WHERE symbol_id IN"
                     " (SELECT id FROM repoctx_search_symbols WHERE section_rowid = ?)", rows)
    conn.executemany("DELETE FROM repoctx_search_symbols WHERE section_rowid = ?", rows)


def _read_sections(conn: sqlite3.Connection, statement: str) -> Iterator[SectionRow]:
    for row in conn.execute(statement + " ORDER BY s.doc_id, s.ordinal").fetchall():
        yield SectionRow(*row)


def path_words(path: str) -> str:
    """The words of a path: folders and file stem, identifiers split."""
    pure = PurePosixPath(path)
    names = [*pure.parent.parts, pure.stem]
    return " ".join(names + [p for n in names for p in split_identifier(n) if p != n.lower()])


def heading_words(section: SectionRow) -> str:
    """The heading path without its leading file path (code sections repeat it)."""
    heading = section.heading_path
    if heading == section.path or heading.startswith(section.path + " > "):
        heading = heading[len(section.path) + 3 :]
    return heading


@dataclass
class _Batch:
    text: list[tuple] | None = None
    aux: list[tuple] | None = None
    names: list[tuple] | None = None
    rows: list[tuple] | None = None
    symbols: list[tuple] | None = None
    parts: list[tuple] | None = None

    def __post_init__(self) -> None:
        self.text, self.aux, self.names, self.rows = [], [], [], []
        self.symbols, self.parts = [], []

    def flush(self, conn: sqlite3.Connection) -> None:
        for table, rows in ((TEXT_TABLE, self.text), (AUX_TABLE, self.aux)):
            conn.executemany(f"INSERT INTO {table}(rowid, name, path, heading, body)"
                             " VALUES (?, ?, ?, ?, ?)", rows)
        conn.executemany("INSERT INTO repoctx_search_names(rowid, name, path, heading)"
                         " VALUES (?, ?, ?, ?)", self.names)
        conn.executemany("INSERT INTO repoctx_search_rows(rowid, section_id) VALUES (?, ?)",
                         self.rows)
        conn.executemany("INSERT INTO repoctx_search_symbols(id, fq, name, norm, kind, path,"
                         " start_line, end_line, section_rowid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         self.symbols)
        conn.executemany("INSERT OR IGNORE INTO repoctx_search_symbol_parts(part, symbol_id)"
                         " VALUES (?, ?)", self.parts)
        self.__post_init__()


def _insert(conn: sqlite3.Connection, sections: Iterable[SectionRow],
            declared: Declared | None) -> None:
    (next_id,) = conn.execute(
        "SELECT coalesce(max(id), 0) + 1 FROM repoctx_search_symbols").fetchone()
    seen = {(fq, path) for fq, path in conn.execute("SELECT fq, path FROM repoctx_search_symbols")}
    vocab: Counter[str] = Counter()
    batch = _Batch()
    for path, rows in groupby(sections, key=lambda section: section.path):
        document = list(rows)
        placed = _placed_symbols(document, declared)
        for section in document:
            found = placed.get(section.rowid, [])
            names = [f.qualname for f in found]
            if section.symbol and section.symbol not in names:
                names.insert(0, section.symbol)  # a split definition's later part
            for symbol in found:
                if (symbol.fq, path) in seen:
                    continue
                seen.add((symbol.fq, path))
                simple = symbol.qualname.rsplit(".", 1)[-1]
                batch.symbols.append((next_id, symbol.fq, simple, normalise_name(simple),
                                      symbol.kind, path, symbol.start_line, symbol.end_line,
                                      section.rowid))
                batch.parts.extend((light_stem(p), next_id) for p in set(split_identifier(simple)))
                next_id += 1
            _add_section(batch, section, names, vocab)
            if len(batch.rows) >= _BATCH:
                batch.flush(conn)
    batch.flush(conn)
    conn.executemany("INSERT INTO repoctx_search_vocab(term, n) VALUES (?, ?)"
                     " ON CONFLICT(term) DO UPDATE SET n = n + excluded.n", vocab.items())


def _placed_symbols(document: list[SectionRow], declared: Declared | None,
                    ) -> dict[int, list[FoundSymbol]]:
    """Section rowid -> the symbols it declares, for a Python code document (else empty)."""
    first = document[0]
    if not first.path.endswith((".py", ".pyi")) or first.doc_kind != "code":
        return {}
    spans = [section.span() for section in document]
    decls = declared(first.path, first.sha256) if declared is not None else None
    if decls is None:
        decls = extracted(first.path, spans)
    return place(document_symbols(first.path, decls), spans)


def _add_section(batch: _Batch, section: SectionRow, names: list[str], vocab: Counter[str]) -> None:
    heading = heading_words(section)
    name_text = " ".join(dict.fromkeys(names))
    path = path_words(section.path)
    rows = batch.aux if is_secondary(section.path) else batch.text
    rows.append((section.rowid, expand_for_index(name_text), path,
                 expand_for_index(heading), expand_for_index(section.text)))
    batch.names.append((section.rowid, name_text, section.path, heading))
    batch.rows.append((section.rowid, section.section_id))
    words = set(_VOCAB_WORD.findall(section.text))
    words.update(_VOCAB_WORD.findall(heading))
    vocab.update({w.lower() for w in words})
