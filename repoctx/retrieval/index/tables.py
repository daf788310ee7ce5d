"""retrieval/index/tables — the search tables repoctx adds inside a ContextPull export.

Writes only ``repoctx_search_*`` tables; ContextPull's own tables and the export's side
tables are read, never changed (DESIGN §5: readers ignore extra tables). Rows are keyed
by the section's rowid, which the writer shares between ``sections`` and
``sections_fts`` and keeps across a copy-and-patch re-export.

- ``repoctx_search_text`` / ``repoctx_search_text_aux``: Porter FTS5 over sections,
  identifiers split (``query.expand_for_index``), columns name / path / heading / body so
  a query can weight them with ``bm25()``. Sections of secondary documents (tests,
  vendored code, catalogues, release notes: ``path_roles.is_secondary``) go to the ``_aux``
  table: ``bm25()`` costs about a microsecond per matching row, and in Django they are
  over half the rows, so the main ranking scores half as many.
- ``repoctx_search_names``: trigram FTS5 over names, paths and headings only (a
  full-text trigram table costs ~6.5x the build time); a document's path in its first
  section's row only.
- ``repoctx_search_symbols`` + ``_symbol_parts``: every Python declaration with its
  normalised name and light-stemmed identifier parts, for exact / prefix / part matches.
  The declarations are the store's (``declared``) when it holds the document's bytes,
  else extracted from the document's sections (``section_symbols``): a symbol's lines
  are its definition's, and the section it points at holds its first line.
- ``repoctx_search_vocab``: words and identifier parts with their section counts, for
  typo correction. An update subtracts the words of every row it deletes (read back
  from the section the row was built from, as the FTS5 deletes are) and adds those of
  every row it inserts, so the counts are a fresh build's.
- ``repoctx_search_rows`` / ``repoctx_search_docs``: what the index was built from (section
  id and a digest of the indexed values per rowid, SHA-256 per path), so an update finds
  every drifted document itself.

The three FTS5 tables are contentless (``content=''``): searches read only their rowids
and ``bm25()``, and a copy of every section's text in each (twice expanded) was over a
fifth of Django's export. SQLite before 3.43 deletes a contentless row only
when given the values it indexed, so an update recomputes them from the section the row
was built from (in the file, or in the previous export the writer attaches as
``previous`` after a patch), checks them against the row's digest, and rebuilds every
table when a row's values cannot be found (an export changed by someone else). A row's
symbol names came from the store's declarations, which a changed file no longer has: they
are read back from the row's ``repoctx_search_symbols`` rows.

A full export computes the values in its own sectioning workers (``SearchRows``, the
export's ``ExtraRows``) and inserts them with the sections. A build over a finished file
computes them document by document over worker processes (``contextpull.ordered_map``):
the store's declarations are looked up here (the store's handle is this process's) and
sent along with the document's sections, undecoded.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby
from pathlib import PurePosixPath

from repoctx.contextpull import PREVIOUS_SCHEMA, DocumentRows, SymbolSpan, ordered_map
from repoctx.extract import extractor_for, language_of, simple_name
from repoctx.reconcile import Declaration
from repoctx.retrieval.index import sql
from repoctx.retrieval.index.section_symbols import (
    FoundSymbol,
    SectionSpan,
    document_symbols,
    extracted,
    place,
    qualname_of,
)
from repoctx.retrieval.index.sql import AUX_TABLE, DDL, FTS_TABLES, TABLES, TEXT_TABLE
from repoctx.retrieval.path_roles import is_secondary
from repoctx.retrieval.query import expand_for_index, light_stem, normalise_name, split_identifier

Declared = Callable[[str, str], "Mapping[str, Declaration] | None"]
"""``(path, sha256)`` -> the store's declarations of ``path`` when it indexed exactly
those bytes, else None (the symbols are then extracted from the exported text). Called
in this process; what it returns is sent to a worker with the document's sections on a
full build, so it must pickle (and is best cheap to: ``export_extras`` returns bytes
that the worker decodes)."""

_VOCAB_WORD = re.compile(r"[A-Za-z][a-z]{2,24}|[A-Z]{3,24}")
_BATCH = 2000
DOCUMENT_CHUNK = 64
"""Documents per worker task (~9 sections each on Django: ~500 sections a task)."""
MIN_DOCUMENTS = 200
"""Below this many documents a full build computes its values in this process."""


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
    conn.execute(sql.SAVEPOINT)
    try:
        yield
    except BaseException:
        conn.execute(sql.ROLLBACK_SAVEPOINT)
        conn.execute(sql.RELEASE_SAVEPOINT)
        raise
    conn.execute(sql.RELEASE_SAVEPOINT)


def has_search_index(conn: sqlite3.Connection) -> bool:
    """True when every search table exists, in this format, in the database on ``conn``."""
    names = {row[0] for row in conn.execute(sql.SEARCH_TABLE_NAMES)}
    if not all(table in names for table in TABLES):
        return False
    columns = {row[1] for row in conn.execute(sql.ROWS_COLUMNS)}
    return "digest" in columns  # an older export's tables (with content) are rebuilt


def build_search_index(conn: sqlite3.Connection, changed_doc_ids: set[int] | None = None,
                       declared: Declared | None = None) -> None:
    """Create or update the search tables inside the export open on ``conn``.

    ``None`` rebuilds everything. Otherwise the rows of ``changed_doc_ids`` are deleted
    and inserted again, together with any document whose SHA-256 drifted from what the
    index was built from and any row whose section is gone; one savepoint holds it all.
    ``declared`` supplies a document's symbols from the store (see ``Declared``).
    When a row to delete was built from a section found neither in the file nor in an
    attached ``previous`` export, everything is rebuilt. After a full export that
    built them in its own pass (``SearchRows``), ``None`` does nothing.
    """
    if changed_doc_ids is None and built_in_pass(conn):
        return  # ``SearchRows`` built them with the export's own rows
    with _savepoint(conn):
        if changed_doc_ids is None or not has_search_index(conn) or \
                not _update(conn, changed_doc_ids, declared):
            _rebuild(conn, declared)


def _rebuild(conn: sqlite3.Connection, declared: Declared | None) -> None:
    for table in TABLES:
        conn.execute(sql.drop_table(table))
    for statement in DDL:
        conn.execute(statement)
    # Streamed from a cursor, not read whole: a big tree's sections are its whole text.
    _insert(conn, (SectionRow(*row) for row in conn.execute(sql.SECTIONS + sql.IN_ORDER)), declared)
    _finish(conn)


def _finish(conn: sqlite3.Connection) -> None:
    """What a full build does after the rows: the documents' digests, the FTS5 merges."""
    conn.execute(sql.INSERT_DOCS)
    for table in FTS_TABLES:
        conn.execute(sql.optimize(table))


def built_in_pass(conn: sqlite3.Connection) -> bool:
    """True (once: the mark is removed) when ``SearchRows`` built the search tables in
    the export's pass on ``conn``."""
    (marked,) = conn.execute(sql.IS_MARKED, (BUILT_IN_PASS,)).fetchone()
    if marked:
        conn.execute(sql.drop_mark(BUILT_IN_PASS))
    return bool(marked)


def _update(conn: sqlite3.Connection, changed: set[int], declared: Declared | None,
            ) -> bool:
    """Delete and insert again what changed; False (having done part of it) when a row
    to delete cannot be deleted, so the caller rebuilds.

    Every section of a changed document is computed again, and its row is kept when the
    section still has it (same rowid and id) with the same digest and the same symbol
    names (their lines are updated where they moved): a patch keeps the rowids of the
    sections it did not change (``contextpull/write/patch``), so a one-file edit rewrites the
    rows of the sections it touched, not the whole file's."""
    conn.execute(sql.CREATE_CHANGED)
    try:
        conn.execute(sql.CLEAR_CHANGED)
        conn.executemany(sql.INSERT_CHANGED,
                         ((int(i),) for i in changed))
        conn.execute(sql.INSERT_DRIFTED)
        stale = dict(conn.execute(sql.GONE_ROWS).fetchall())
        computed = list(_compute(_read_sections(conn, sql.SECTIONS_OF_CHANGED), declared))
        fresh = _unkept(conn, computed, stale)
        if not _delete_rows(conn, stale):
            return False
        _write(conn, fresh, [item[0][0].path for item, _ in computed])
        _insert(conn, _read_sections(conn, sql.SECTIONS_MISSING_ROWS), declared)
        conn.execute(sql.DELETE_DOCS)
        conn.execute(sql.INSERT_DOCS)
    finally:
        conn.execute(sql.DROP_CHANGED)
    return True


_Computed = list[tuple[tuple, set[str], tuple[tuple, ...]]]
"""What ``_computed`` gives for one document: per section its values, words, symbols."""


def _unkept(conn: sqlite3.Connection, computed: list[tuple[tuple, _Computed]],
            stale: dict[int, int]) -> list[tuple[tuple, _Computed]]:
    """The sections of ``computed`` (``((document, decls), per section)`` pairs) whose
    rows cannot be kept, with what they compute to; each one's existing row is added to
    ``stale`` (rowid -> digest). The symbols of a kept row get the lines they have now."""
    rows = {rowid: (sid, digest) for rowid, sid, digest in conn.execute(sql.ROWS_OF_CHANGED)}
    symbols: dict[int, list[tuple]] = {}
    for rowid, *symbol in conn.execute(sql.SYMBOLS_OF_CHANGED):
        symbols.setdefault(rowid, []).append(tuple(symbol))
    moved: list[tuple[int, int, int]] = []
    out = []
    for item, values in computed:
        document, placed = item[0], _first_placed(values)
        unkept = []
        for section, value, names in zip(document, values, placed, strict=True):
            row = rows.get(section.rowid)
            if row is not None and row == (section.section_id, value[0][3]):
                lines = _same_names(symbols.get(section.rowid, []), names)
                if lines is not None:
                    moved += lines
                    continue
            if row is not None:
                stale[section.rowid] = row[1]
            unkept.append((section, value))
        if unkept:
            out.append(((tuple(s for s, _ in unkept), item[1]), [v for _, v in unkept]))
    conn.executemany(sql.MOVE_SYMBOL, moved)
    return out


def _first_placed(values: _Computed) -> list[dict[str, tuple]]:
    """Per section, the symbols an insert in document order gives it (a name declared
    in two sections goes to the first): fq -> ``_symbol_values``."""
    seen: set[str] = set()
    placed = []
    for _, _, found in values:
        mine = {symbol[0]: symbol for symbol in found if symbol[0] not in seen}
        seen.update(mine)
        placed.append(mine)
    return placed


def _same_names(rows: list[tuple], names: dict[str, tuple]) -> list[tuple[int, int, int]] | None:
    """``(start_line, end_line, id)`` of the symbol ``rows`` (``id, fq, name, norm, kind,
    start_line, end_line``) whose lines differ from ``names``'; None when the names,
    norms or kinds differ."""
    if len(rows) != len(names):
        return None
    moved = []
    for symbol_id, fq, name, norm, kind, start_line, end_line in rows:
        new = names.get(fq)
        if new is None or new[1:4] != (name, norm, kind):
            return None
        if new[4:6] != (start_line, end_line):
            moved.append((new[4], new[5], symbol_id))
    return moved


def _schemas(conn: sqlite3.Connection) -> list[str]:
    """Where a deleted row's section may still be: this file, then the previous export."""
    attached = {row[1] for row in conn.execute(sql.DATABASES)}
    return [name for name in ("main", PREVIOUS_SCHEMA) if name in attached]


def _sections_at(conn: sqlite3.Connection, schema: str, rowids: list[int]) -> list[SectionRow]:
    """The sections of ``schema`` with these rowids."""
    return _read_sections(conn, sql.sections_at(schema), (json.dumps(rowids),))


def _delete_rows(conn: sqlite3.Connection, stale: dict[int, int]) -> bool:
    """Delete the rows of ``stale`` (rowid -> digest); False, deleting nothing, when the
    values some row was built from are nowhere to be found."""
    found: dict[int, Indexed] = {}
    gone: Counter[str] = Counter()
    placed = _placed_names(conn, list(stale))
    for schema in _schemas(conn):
        wanted = [rowid for rowid in stale if rowid not in found]
        if not wanted:
            break
        for section in _sections_at(conn, schema, wanted):
            qualnames = [qualname_of(section.path, fq) for fq in placed.get(section.rowid, ())]
            indexed = indexed_values(section, qualnames)
            if indexed.digest == stale[section.rowid]:
                found[section.rowid] = indexed
                gone.update(vocab_words(section.text, indexed.names[2]))
    if len(found) < len(stale):
        return False
    for rowid, indexed in found.items():
        table = AUX_TABLE if indexed.secondary else TEXT_TABLE
        conn.execute(sql.delete_text_row(table), (rowid, *indexed.text))
        conn.execute(sql.DELETE_NAMES_ROW, (rowid, *indexed.names))
    rows = [(rowid,) for rowid in stale]
    conn.executemany(sql.DELETE_ROW, rows)
    _delete_symbols(conn, list(stale))
    conn.executemany(sql.SUBTRACT_VOCAB, ((n, term) for term, n in gone.items()))
    conn.execute(sql.DROP_UNUSED_VOCAB)
    return True


def _placed_names(conn: sqlite3.Connection, rowids: list[int]) -> dict[int, list[str]]:
    """Section rowid -> the fq names of the symbols placed in it when it was inserted, in
    line order (a row's names were the store's declarations then, which the store may no
    longer hold: the symbol rows are what is left of them)."""
    placed: dict[int, list[str]] = {}
    for rowid, fq in conn.execute(sql.PLACED_NAMES, (json.dumps(rowids),)):
        placed.setdefault(rowid, []).append(fq)
    return placed


def _delete_symbols(conn: sqlite3.Connection, rowids: list[int]) -> None:
    """Delete the symbols of these section rowids and their parts, each part by its key
    (the parts are the ones ``_insert`` made of the name: by ``symbol_id`` alone every
    delete scanned the whole table, ~2 s of a one-file re-export on Django)."""
    symbols = conn.execute(sql.SYMBOLS_OF_SECTIONS, (json.dumps(rowids),)).fetchall()
    conn.executemany(sql.DELETE_SYMBOL_PART,
                     ((part, symbol_id) for symbol_id, name in symbols
                      for part in _parts(name)))
    conn.executemany(sql.DELETE_SYMBOL,
                     ((symbol_id,) for symbol_id, _ in symbols))


def _parts(name: str) -> set[str]:
    """The identifier parts a symbol named ``name`` is found by."""
    return {light_stem(p) for p in split_identifier(name)}


def _read_sections(conn: sqlite3.Connection, statement: str,
                   params: tuple = ()) -> list[SectionRow]:
    return [SectionRow(*row) for row in conn.execute(statement, params).fetchall()]


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


@dataclass(frozen=True)
class Indexed:
    """What one section puts in the search tables: its declarations, the values of its
    Porter row (``text``, in the ``_aux`` table when ``secondary``) and of its trigram row
    (``names``), and a signed 64-bit digest of both (kept in ``repoctx_search_rows``)."""

    found: tuple[FoundSymbol, ...]
    text: tuple[str, str, str, str]
    names: tuple[str, str, str]
    secondary: bool
    digest: int


def values_digest(text: tuple[str, ...], names: tuple[str, ...], secondary: bool) -> int:
    """A signed 64-bit digest (an SQLite INTEGER) of a section's indexed values."""
    joined = "\0".join((*text, *names, str(secondary))).encode()
    return int.from_bytes(hashlib.blake2b(joined, digest_size=8).digest(), "big", signed=True)


def indexed_values(section: SectionRow, qualnames: Iterable[str] = (),
                   found: tuple[FoundSymbol, ...] = ()) -> Indexed:
    """The values ``section`` is indexed with (the same for an insert and its delete):
    ``qualnames`` are the symbols placed in it (``found``, when inserting), in line order;
    the section's own symbol (a split definition's later part) comes first."""
    names = list(qualnames)
    if section.symbol and section.symbol not in names:
        names.insert(0, section.symbol)
    heading = heading_words(section)
    name_text = " ".join(dict.fromkeys(names))
    words, secondary = _path_values(section.path)
    text = (expand_for_index(name_text), words, expand_for_index(heading),
            expand_for_index(section.text))
    # The trigram row carries the path in its document's first section only: once per
    # section, the path was 5.7 of the table's 13.6 MB on Django, and a path match needs
    # one section to bring in its file (retrieval figures are the same).
    path = section.path if section.section_id.rpartition("#")[2] == "0" else ""
    values = (name_text, path, heading)
    return Indexed(found, text, values, secondary, values_digest(text, values, secondary))


@lru_cache(maxsize=8192)
def _path_values(path: str) -> tuple[str, bool]:
    """A path's words and whether it is secondary (sections of one path come together)."""
    return path_words(path), is_secondary(path)


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
            conn.executemany(sql.insert_text_row(table), rows)
        conn.executemany(sql.INSERT_NAMES_ROW, self.names)
        conn.executemany(sql.INSERT_ROW, self.rows)
        conn.executemany(sql.INSERT_SYMBOL, self.symbols)
        conn.executemany(sql.INSERT_SYMBOL_PART, self.parts)
        self.__post_init__()


def _compute(sections: Iterable[SectionRow], declared: Declared | None,
             ) -> Iterator[tuple[tuple, _Computed]]:
    """``((document, declarations), computed)`` per document of ``sections`` (in order),
    over worker processes when there are many."""
    documents = ((document, _declarations(document, declared))
                 for _, rows in groupby(sections, key=lambda section: section.path)
                 for document in (list(rows),))
    return ordered_map(_computed, documents, chunk=DOCUMENT_CHUNK, min_items=MIN_DOCUMENTS)


def _insert(conn: sqlite3.Connection, sections: Iterable[SectionRow],
            declared: Declared | None) -> None:
    paths = sorted({s.path for s in sections}) if isinstance(sections, list) else None
    if paths != []:
        _write(conn, _compute(sections, declared), paths)


def _write(conn: sqlite3.Connection, computed: Iterable[tuple[tuple, _Computed]],
           paths: list[str] | None) -> None:
    """Insert the rows of ``computed`` sections; ``paths``: the only paths whose symbols
    may be in the table already (an update), None for any."""
    (next_id,) = conn.execute(sql.NEXT_SYMBOL_ID).fetchone()
    query, params = sql.SYMBOLS_SEEN, ()
    if paths is not None:  # an update: only its paths' symbols can be seen again
        query, params = sql.SYMBOLS_SEEN_OF_PATHS, (json.dumps(paths),)
    inserter = _Inserter(conn, set(conn.execute(query, params).fetchall()), next_id)
    for (document, _), values_of in computed:
        inserter.add(document[0].path, [s.rowid for s in document],
                     [s.section_id for s in document], values_of)
    inserter.close()


class _Inserter:
    """The inserting process's side of a build: symbol ids (a symbol declared twice in
    one file is kept once), the batched rows, the vocabulary."""

    def __init__(self, conn: sqlite3.Connection, seen: set[tuple[str, str]], next_id: int,
                 ) -> None:
        self.conn, self.seen, self.next_id = conn, seen, next_id
        self.vocab: Counter[str] = Counter()
        self.batch = _Batch()

    def add(self, path: str, rowids: Sequence[int], section_ids: Sequence[str],
            computed: _Computed) -> None:
        """One document's sections (``rowids``, ``section_ids``) with their ``_computed``."""
        batch = self.batch
        for rowid, section_id, (values, words, symbols) in zip(rowids, section_ids, computed,
                                                               strict=True):
            for fq, simple, norm, kind, start_line, end_line, parts in symbols:
                if (fq, path) in self.seen:
                    continue
                self.seen.add((fq, path))
                batch.symbols.append((self.next_id, fq, simple, norm, kind, path,
                                      start_line, end_line, rowid))
                batch.parts.extend((part, self.next_id) for part in parts)
                self.next_id += 1
            _add_section(batch, rowid, section_id, *values)
            self.vocab.update(words)
            if len(batch.rows) >= _BATCH:
                batch.flush(self.conn)

    def close(self) -> None:
        """The last rows, and the vocabulary."""
        self.batch.flush(self.conn)
        self.conn.executemany(sql.ADD_VOCAB, self.vocab.items())


def _is_symbol_code(section: SectionRow) -> bool:
    """A code document of a language with an extractor (Python, Go, Rust, TS/JS…)."""
    return section.doc_kind == "code" and extractor_for(language_of(section.path)) is not None


def _declarations(document: list[SectionRow], declared: Declared | None,
                  ) -> Mapping[str, Declaration] | None:
    """The store's declarations of a code document, looked up in this process
    (the store's handle stays here; the workers get the declarations with the sections)."""
    first = document[0]
    if declared is None or not _is_symbol_code(first):
        return None
    return declared(first.path, first.sha256)


def _placed_symbols(document: list[SectionRow], decls: Mapping[str, Declaration] | None,
                    ) -> dict[int, list[FoundSymbol]]:
    """Section rowid -> the symbols it declares, for a code document (else empty):
    ``decls`` when the store had them, else what the extractor finds in the sections."""
    first = document[0]
    if not _is_symbol_code(first):
        return {}
    spans = [section.span() for section in document]
    if decls is None:
        decls = extracted(first.path, spans)
    return place(document_symbols(first.path, decls), spans)


def _symbol_values(symbol: FoundSymbol) -> tuple:
    """A symbol's ``repoctx_search_symbols`` values less ``id``, ``path`` and
    ``section_rowid``, with its identifier parts (``fq, name, norm, kind, start_line,
    end_line, parts``)."""
    simple = simple_name(symbol.qualname)
    return (symbol.fq, simple, normalise_name(simple), symbol.kind, symbol.start_line,
            symbol.end_line, tuple(_parts(simple)))


def _computed(item: tuple[list[SectionRow], Mapping[str, Declaration] | None],
              ) -> _Computed:
    """Each section of one document (in a worker for a full build): its indexed values
    ``(text, names, secondary, digest)``, its vocabulary words, and its symbols'
    ``_symbol_values``. Plain tuples, not ``Indexed``: they are sent back pickled, and
    the names, norms and parts are computed here, not in the inserting process."""
    document, decls = item
    placed = _placed_symbols(document, decls)
    out = []
    for section in document:
        found = tuple(placed.get(section.rowid, ()))
        indexed = indexed_values(section, [f.qualname for f in found], found)
        values = (indexed.text, indexed.names, indexed.secondary, indexed.digest)
        out.append((values, vocab_words(section.text, indexed.names[2]),
                    tuple(map(_symbol_values, found))))
    return out


def vocab_words(text: str, heading: str) -> set[str]:
    """The words (lowercase) a section with ``text`` and indexed ``heading`` counts once each in
    ``repoctx_search_vocab``."""
    return {w.lower() for w in (*_VOCAB_WORD.findall(text), *_VOCAB_WORD.findall(heading))}


def _add_section(batch: _Batch, rowid: int, section_id: str, text: tuple, names: tuple,
                 secondary: bool, digest: int) -> None:
    rows = batch.aux if secondary else batch.text
    rows.append((rowid, *text))
    batch.names.append((rowid, *names))
    batch.rows.append((rowid, section_id, digest))


BUILT_IN_PASS = "repoctx_search_built"
"""A temporary table (this connection's only) that says the search tables were built in
the export's own pass (``SearchRows``), so the ``finalize`` hook after it has nothing left
to build."""


class SearchRows:
    """``contextpull``'s ``ExtraRows`` for the search tables: a full export computes each
    document's values in its sectioning worker (``compute``: the document's sections as
    the index would read them back, with the store's declarations the definitions
    source found for those bytes) and inserts them beside the document's own rows, with
    the rowids the writer gave its sections: no read-back, no second pool of workers.
    The rows are those ``build_search_index`` builds from the finished file."""

    def compute(self, rows: DocumentRows, declared: Sequence[SymbolSpan] | None,
                ) -> _Computed:
        """``_computed`` of the document's sections (placed by ordinal: a worker knows
        no rowid; the ids are the contract's ``path#ordinal``)."""
        sections = [SectionRow(ordinal, f"{rows.path}#{ordinal}", rows.path, rows.kind,
                               s.heading_path, s.text, s.start_line, s.end_line, s.symbol,
                               rows.sha256)
                    for ordinal, s in enumerate(rows.sections)]
        if not sections:  # an empty file
            return []
        decls = None if declared is None else {span.fq_name: span for span in declared}
        return _computed((sections, decls))

    def open(self, conn: sqlite3.Connection) -> _SearchSink:
        """The search tables created empty in the file on ``conn``, and their sink."""
        for table in TABLES:
            conn.execute(sql.drop_table(table))
        for statement in DDL:
            conn.execute(statement)
        return _SearchSink(conn)


class _SearchSink:
    """Inserts a ``SearchRows`` build's values; ``close`` finishes the tables as
    ``_rebuild`` does and marks the connection (``BUILT_IN_PASS``)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.inserter = _Inserter(conn, set(), 1)

    def add(self, path: str, rowid: int, section_ids: Sequence[str],
            computed: object) -> None:
        """One document's values, its sections' rowids from ``rowid`` on."""
        assert isinstance(computed, list), "values come from SearchRows.compute"
        self.inserter.add(path, range(rowid, rowid + len(section_ids)), section_ids,
                          computed)

    def close(self) -> None:
        """The last rows, the vocabulary, the documents, the FTS5 merges; then the mark."""
        self.inserter.close()
        _finish(self.conn)
        self.conn.execute(sql.create_mark(BUILT_IN_PASS))
