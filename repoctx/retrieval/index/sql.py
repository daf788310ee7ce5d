"""retrieval/index/sql — SQL text of the search tables, built without a database.

Pure; no I/O. ``retrieval/index/tables`` runs these; fixed statements are module
constants grouped as schema / full build / update / insert, and the builders return
strings for what names a table or an attached schema.
"""

from __future__ import annotations

# -- schema ------------------------------------------------------------------------------
PORTER_TOKENIZE = "porter unicode61 remove_diacritics 2 tokenchars '_'"
TEXT_TABLE, AUX_TABLE = "repoctx_search_text", "repoctx_search_text_aux"
NAMES_TABLE = "repoctx_search_names"
FTS_TABLES = (TEXT_TABLE, AUX_TABLE, NAMES_TABLE)
TABLES = (TEXT_TABLE, AUX_TABLE, NAMES_TABLE, "repoctx_search_symbols",
          "repoctx_search_symbol_parts", "repoctx_search_vocab", "repoctx_search_rows",
          "repoctx_search_docs")

DDL = (
    *(f"CREATE VIRTUAL TABLE {table} USING fts5(name, path, heading, body, content = '',"
      f' tokenize = "{PORTER_TOKENIZE}")' for table in (TEXT_TABLE, AUX_TABLE)),
    "CREATE VIRTUAL TABLE repoctx_search_names USING fts5(name, path, heading, content = '',"
    " tokenize = 'trigram')",
    "CREATE TABLE repoctx_search_rows(rowid INTEGER PRIMARY KEY, section_id TEXT NOT NULL,"
    " digest INTEGER NOT NULL)",
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
SEARCH_TABLE_NAMES = "SELECT name FROM sqlite_master WHERE name LIKE 'repoctx_search_%'"
ROWS_COLUMNS = "PRAGMA main.table_info(repoctx_search_rows)"
DATABASES = "PRAGMA database_list"


def drop_table(table: str) -> str:
    """Drop ``table`` when it exists."""
    return f"DROP TABLE IF EXISTS {table}"


# -- savepoint: one update or build as a unit ------------------------------------------------
SAVEPOINT = "SAVEPOINT repoctx_search"
ROLLBACK_SAVEPOINT = "ROLLBACK TO repoctx_search"
RELEASE_SAVEPOINT = "RELEASE repoctx_search"

# -- what the index reads of sections --------------------------------------------------------
SECTIONS_IN = (  # {schema}: this file ("main") or an attached previous export
    "SELECT s.rowid, s.id, d.path, d.kind, s.heading_path, s.text, r.start_line, r.end_line,"
    " r.symbol, d.sha256"
    " FROM {schema}.sections s JOIN {schema}.documents d ON d.doc_id = s.doc_id"
    " LEFT JOIN {schema}.repoctx_sections r ON r.id = s.id"
)
SECTIONS = SECTIONS_IN.format(schema="main")
IN_ORDER = " ORDER BY s.doc_id, s.ordinal"  # a document's sections together, in order


def sections_at(schema: str) -> str:
    """The sections of ``schema`` whose rowids are the JSON array parameter."""
    return f"{SECTIONS_IN.format(schema=schema)} WHERE s.rowid IN (SELECT value FROM json_each(?))"


# -- full build ------------------------------------------------------------------------------
INSERT_DOCS = "INSERT INTO repoctx_search_docs(path, sha256) SELECT path, sha256 FROM documents"
IS_MARKED = "SELECT count(*) FROM temp.sqlite_master WHERE name = ?"


def optimize(table: str) -> str:
    """FTS5's merge of every segment of ``table``."""
    return f"INSERT INTO {table}({table}) VALUES ('optimize')"


def drop_mark(mark: str) -> str:
    """Drop the temporary table ``mark``."""
    return f"DROP TABLE temp.{mark}"


def create_mark(mark: str) -> str:
    """Create the temporary table ``mark`` (a flag of this connection's)."""
    return f"CREATE TEMP TABLE IF NOT EXISTS {mark}(x)"


# -- update: the documents that changed, in a temporary table ---------------------------------
CREATE_CHANGED = ("CREATE TEMP TABLE IF NOT EXISTS repoctx_search_changed"
                  "(doc_id INTEGER PRIMARY KEY)")
CLEAR_CHANGED = "DELETE FROM repoctx_search_changed"
INSERT_CHANGED = "INSERT OR IGNORE INTO repoctx_search_changed VALUES (?)"
DROP_CHANGED = "DROP TABLE repoctx_search_changed"
# These read ``sections`` through its indexes only: (id, rowid) pairs from the one on
# ``id``, rowids by ``doc_id`` from the one on ``(doc_id, ordinal)``. Joined to the table
# itself, the check read every page of every section's text (51 MB on Django: ~0.1 s
# of CPU, mostly page faults, in a one-file re-export).
CHANGED = "SELECT doc_id FROM repoctx_search_changed"
GONE_ROWS = (  # rows whose section is gone, or holds another id
    "SELECT m.rowid, m.digest FROM repoctx_search_rows m"
    " WHERE (m.section_id, m.rowid) NOT IN (SELECT id, rowid FROM sections)"
)
ROWS_OF_CHANGED = (
    "SELECT m.rowid, m.section_id, m.digest FROM repoctx_search_rows m WHERE m.rowid IN"
    f" (SELECT rowid FROM sections WHERE doc_id IN ({CHANGED}))"
)
SYMBOLS_OF_CHANGED = (
    "SELECT section_rowid, id, fq, name, norm, kind, start_line, end_line"
    " FROM repoctx_search_symbols WHERE section_rowid IN"
    f" (SELECT rowid FROM sections WHERE doc_id IN ({CHANGED}))"
)
MISSING_ROWS = (  # sections without a row, of documents not changed
    " WHERE s.rowid IN (SELECT rowid FROM sections WHERE rowid NOT IN"
    f" (SELECT rowid FROM repoctx_search_rows) AND doc_id NOT IN ({CHANGED}))"
)
DRIFTED_DOCS = (
    "SELECT d.doc_id FROM documents d LEFT JOIN repoctx_search_docs x ON x.path = d.path"
    " WHERE x.sha256 IS NULL OR x.sha256 != d.sha256"
)
INSERT_DRIFTED = f"INSERT OR IGNORE INTO repoctx_search_changed {DRIFTED_DOCS}"
SECTIONS_OF_CHANGED = f"{SECTIONS} WHERE s.doc_id IN ({CHANGED}){IN_ORDER}"
SECTIONS_MISSING_ROWS = SECTIONS + MISSING_ROWS + IN_ORDER
DELETE_DOCS = "DELETE FROM repoctx_search_docs"
MOVE_SYMBOL = "UPDATE repoctx_search_symbols SET start_line = ?, end_line = ? WHERE id = ?"

# -- update: deleting rows (by the values they were built from) --------------------------------


def delete_text_row(table: str) -> str:
    """Delete one row of the contentless Porter ``table``: rowid and its four values."""
    return (f"INSERT INTO {table}({table}, rowid, name, path, heading, body)"
            " VALUES ('delete', ?, ?, ?, ?, ?)")


DELETE_NAMES_ROW = ("INSERT INTO repoctx_search_names(repoctx_search_names, rowid, name, path,"
                    " heading) VALUES ('delete', ?, ?, ?, ?)")
DELETE_ROW = "DELETE FROM repoctx_search_rows WHERE rowid = ?"
PLACED_NAMES = ("SELECT section_rowid, fq FROM repoctx_search_symbols WHERE section_rowid IN"
                " (SELECT value FROM json_each(?)) ORDER BY section_rowid, start_line, fq")
SYMBOLS_OF_SECTIONS = ("SELECT id, name FROM repoctx_search_symbols WHERE section_rowid IN"
                       " (SELECT value FROM json_each(?))")
DELETE_SYMBOL_PART = "DELETE FROM repoctx_search_symbol_parts WHERE part = ? AND symbol_id = ?"
DELETE_SYMBOL = "DELETE FROM repoctx_search_symbols WHERE id = ?"
SUBTRACT_VOCAB = "UPDATE repoctx_search_vocab SET n = n - ? WHERE term = ?"
DROP_UNUSED_VOCAB = "DELETE FROM repoctx_search_vocab WHERE n <= 0"

# -- insert ----------------------------------------------------------------------------------


def insert_text_row(table: str) -> str:
    """Insert one row of the Porter ``table``: rowid and its four values."""
    return f"INSERT INTO {table}(rowid, name, path, heading, body) VALUES (?, ?, ?, ?, ?)"


INSERT_NAMES_ROW = ("INSERT INTO repoctx_search_names(rowid, name, path, heading)"
                    " VALUES (?, ?, ?, ?)")
INSERT_ROW = "INSERT INTO repoctx_search_rows(rowid, section_id, digest) VALUES (?, ?, ?)"
INSERT_SYMBOL = ("INSERT INTO repoctx_search_symbols(id, fq, name, norm, kind, path,"
                 " start_line, end_line, section_rowid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
INSERT_SYMBOL_PART = ("INSERT OR IGNORE INTO repoctx_search_symbol_parts(part, symbol_id)"
                      " VALUES (?, ?)")
NEXT_SYMBOL_ID = "SELECT coalesce(max(id), 0) + 1 FROM repoctx_search_symbols"
SYMBOLS_SEEN = "SELECT fq, path FROM repoctx_search_symbols"
# an update: only its paths' symbols can be seen again, found by index (every symbol
# as a set costs ~60 ms on Django)
SYMBOLS_SEEN_OF_PATHS = (
    SYMBOLS_SEEN + " WHERE section_rowid IN (SELECT s.rowid FROM sections s JOIN documents d"
    " ON d.doc_id = s.doc_id WHERE d.path IN (SELECT value FROM json_each(?)))"
)
ADD_VOCAB = ("INSERT INTO repoctx_search_vocab(term, n) VALUES (?, ?)"
             " ON CONFLICT(term) DO UPDATE SET n = n + excluded.n")

# -- verify: the tables against the sections (``retrieval/index/verify``) --------------------
STRAY_ROWS = (  # (table, rows that disagree: the first column names each)
    ("repoctx_search_rows", "SELECT m.section_id FROM repoctx_search_rows m"
     " WHERE (m.section_id, m.rowid) NOT IN (SELECT id, rowid FROM sections)"),
    ("repoctx_search_rows", "SELECT id FROM sections WHERE rowid NOT IN"
     " (SELECT rowid FROM repoctx_search_rows)"),
    ("repoctx_search_symbols", "SELECT fq FROM repoctx_search_symbols WHERE section_rowid"
     " NOT IN (SELECT rowid FROM sections)"),
    ("repoctx_search_symbol_parts", "SELECT part FROM repoctx_search_symbol_parts WHERE"
     " symbol_id NOT IN (SELECT id FROM repoctx_search_symbols)"),
    ("repoctx_search_docs", "SELECT path, sha256 FROM repoctx_search_docs"
     " EXCEPT SELECT path, sha256 FROM documents"),
    ("repoctx_search_docs", "SELECT path, sha256 FROM documents"
     " EXCEPT SELECT path, sha256 FROM repoctx_search_docs"),
)
COUNT_SECTIONS = "SELECT count(*) FROM sections"
# one ``_docsize`` row per FTS5 row: a section is in the text or the aux table, and in names
COUNT_TEXT_ROWS = (f"SELECT (SELECT count(*) FROM {TEXT_TABLE}_docsize)"
                   f" + (SELECT count(*) FROM {AUX_TABLE}_docsize)")
COUNT_NAMES_ROWS = f"SELECT count(*) FROM {NAMES_TABLE}_docsize"
VOCAB = "SELECT term, n FROM repoctx_search_vocab"
