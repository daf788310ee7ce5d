"""`contextpull/sql` — SQL text for the writer and the reader, built without a database.

Pure; no I/O. Fixed statements are module constants grouped as write / search / read;
the builders return strings (and their parameters) so tests can check them without SQLite.
"""

from __future__ import annotations

from collections.abc import Sequence

# -- write -------------------------------------------------------------------------------
INSERT_META = "INSERT INTO meta(key, value) VALUES (?, ?)"
INSERT_REPOCTX_META = "INSERT INTO repoctx_meta(key, value) VALUES (?, ?)"
DELETE_META = "DELETE FROM meta"
DELETE_REPOCTX_META = "DELETE FROM repoctx_meta"
# Insert statements put ``doc_id`` and the rowid last: the rest of each row is built once,
# possibly in a worker (``contextpull/write/encoded``), and the writer only appends them.
INSERT_DOCUMENT = (
    "INSERT INTO documents(path, title, summary, summary_src, sha256, bytes, kind,"
    " n_sections, ingested_at, doc_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
# Sections and their FTS rows share a rowid (DESIGN §5 says nothing of rowids), so a
# patch can delete a document's FTS rows by rowid; ``repoctx_meta.fts_rowids`` says so.
INSERT_SECTION = (
    "INSERT INTO sections(id, ordinal, heading_path, level, kind, text, char_len, hash,"
    " prev_id, next_id, doc_id, rowid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_FTS = "INSERT INTO sections_fts(id, heading_path, text, rowid) VALUES (?, ?, ?, ?)"
INSERT_EMBEDDING = "INSERT INTO embeddings(section_id, model, dim, vec) VALUES (?, ?, ?, ?)"
INSERT_REPOCTX_DOCUMENT = (
    "INSERT INTO repoctx_documents(language, tokens, mtime_ns, doc_id) VALUES (?, ?, ?, ?)"
)
INSERT_REPOCTX_SECTION = (
    "INSERT INTO repoctx_sections(id, start_line, end_line, tokens, symbol) VALUES (?, ?, ?, ?, ?)"
)
# FTS5's 'automerge' option (a row in ``sections_fts_config``); 4 is FTS5's default.
SET_FTS_AUTOMERGE = "INSERT INTO sections_fts(sections_fts, rank) VALUES ('automerge', ?)"
FTS_AUTOMERGE_DEFAULT = 4

# A kept document read again (its stat had changed, or was too recent to trust) gets the
# stat it was read under.
UPDATE_MTIME = "UPDATE repoctx_documents SET mtime_ns = ? WHERE doc_id = ?"
MAX_SECTION_ROWID = "SELECT coalesce(max(rowid), 0) FROM sections"

# -- integrity: each section with its document's path and its FTS row (by shared rowid)
SECTIONS_WITH_FTS = (
    "SELECT s.rowid, s.id, d.path, s.heading_path, s.text, s.char_len, s.hash, f.id,"
    " f.heading_path, f.text FROM sections s JOIN documents d ON d.doc_id = s.doc_id"
    " LEFT JOIN sections_fts f ON f.rowid = s.rowid"
)

# -- patch: a changed document's sections replaced in place (``inserts.replace_sections``)
SECTIONS_OF_DOCUMENT = (
    "SELECT rowid, id, ordinal, heading_path, level, kind, text, char_len, hash, prev_id,"
    " next_id FROM sections WHERE doc_id = ?"
)
SIDE_SECTIONS_IN = (
    "SELECT id, start_line, end_line, tokens, symbol FROM repoctx_sections WHERE id IN"
)
UPDATE_SECTION = (
    "UPDATE sections SET ordinal = ?, heading_path = ?, level = ?, kind = ?, text = ?,"
    " char_len = ?, hash = ?, prev_id = ?, next_id = ? WHERE rowid = ?"
)
UPSERT_REPOCTX_SECTION = (
    "INSERT OR REPLACE INTO repoctx_sections(id, start_line, end_line, tokens, symbol)"
    " VALUES (?, ?, ?, ?, ?)"
)
DELETE_FTS_ROW = "DELETE FROM sections_fts WHERE rowid = ?"
DELETE_SECTION_ROW = "DELETE FROM sections WHERE rowid = ?"
DELETE_REPOCTX_SECTION = "DELETE FROM repoctx_sections WHERE id = ?"
DELETE_SECTION_EMBEDDINGS = (
    "DELETE FROM embeddings WHERE section_id IN (SELECT id FROM sections WHERE doc_id = ?)"
)
DELETE_REPOCTX_DOCUMENT = "DELETE FROM repoctx_documents WHERE doc_id = ?"
DELETE_DOCUMENT = "DELETE FROM documents WHERE doc_id = ?"

# -- patch (re-export by copy-and-patch) -------------------------------------------------
CREATE_GONE = "CREATE TEMP TABLE gone(doc_id INTEGER PRIMARY KEY)"
INSERT_GONE = "INSERT INTO gone(doc_id) VALUES (?)"
_GONE_SECTIONS = "SELECT {column} FROM sections WHERE doc_id IN (SELECT doc_id FROM gone)"
DELETE_GONE = (
    f"DELETE FROM sections_fts WHERE rowid IN ({_GONE_SECTIONS.format(column='rowid')})",
    f"DELETE FROM embeddings WHERE section_id IN ({_GONE_SECTIONS.format(column='id')})",
    f"DELETE FROM repoctx_sections WHERE id IN ({_GONE_SECTIONS.format(column='id')})",
    "DELETE FROM sections WHERE doc_id IN (SELECT doc_id FROM gone)",
    "DELETE FROM repoctx_documents WHERE doc_id IN (SELECT doc_id FROM gone)",
    "DELETE FROM documents WHERE doc_id IN (SELECT doc_id FROM gone)",
)
CREATE_MOVED = "CREATE TEMP TABLE moved(old INTEGER PRIMARY KEY, new INTEGER NOT NULL)"
INSERT_MOVED = "INSERT INTO moved(old, new) VALUES (?, ?)"


def renumber_sql(table: str) -> tuple[str, str]:
    """Two UPDATEs moving ``table.doc_id`` from ``moved.old`` to ``moved.new``.

    The first parks each moved id at its negated target (no collision with live ids,
    which are positive), the second flips them back, so no UNIQUE check trips midway.
    """
    return (
        f"UPDATE {table} SET doc_id = -(SELECT new FROM moved WHERE old = {table}.doc_id)"
        " WHERE doc_id IN (SELECT old FROM moved)",
        f"UPDATE {table} SET doc_id = -doc_id WHERE doc_id < 0",
    )


# -- previous export (reuse) ------------------------------------------------------------
PREVIOUS_DOCUMENTS = (
    "SELECT doc_id, path, title, summary, summary_src, sha256, kind, ingested_at, n_sections"
    " FROM documents"
)
# Tables a finalize hook adds (``repoctx_search_*``) are extras of another layer: they
# never decide whether a previous export can be patched.
TABLE_SQL = (
    "SELECT name, sql FROM sqlite_master WHERE type = 'table'"
    " AND name NOT LIKE 'repoctx\\_search\\_%' ESCAPE '\\' ORDER BY name"
)
REPOCTX_META = "SELECT key, value FROM repoctx_meta"
# Recorded stats of a patchable previous export: bytes and mtime per path.
PREVIOUS_STATS = (
    "SELECT d.path, d.bytes, r.mtime_ns FROM documents d JOIN repoctx_documents r USING(doc_id)"
    " WHERE r.mtime_ns IS NOT NULL"
)
PREVIOUS_SECTIONS = (
    "SELECT ordinal, heading_path, level, kind, text FROM sections"
    " WHERE doc_id = ? ORDER BY ordinal"
)
PREVIOUS_EMBEDDINGS = (
    "SELECT e.section_id, e.model, e.dim, e.vec FROM embeddings e"
    " JOIN sections s ON s.id = e.section_id WHERE s.doc_id = ?"
)
PREVIOUS_REPOCTX_DOCUMENT = "SELECT language, tokens FROM repoctx_documents WHERE doc_id = ?"
PREVIOUS_REPOCTX_SECTIONS = (
    "SELECT r.id, r.start_line, r.end_line, r.tokens, r.symbol FROM repoctx_sections r"
    " JOIN sections s ON s.id = r.id WHERE s.doc_id = ?"
)

# -- open / read ------------------------------------------------------------------------
META_VALUE = "SELECT value FROM meta WHERE key = ?"
FTS_PROBE = "SELECT count(*) FROM sections_fts LIMIT 1"
_SECTION_COLUMNS = (
    "s.id, d.path, s.heading_path, s.kind, s.text, s.prev_id, s.next_id, s.doc_id, s.ordinal"
)
SECTION_BY_ID = (
    f"SELECT {_SECTION_COLUMNS} FROM sections s JOIN documents d ON d.doc_id = s.doc_id"
    " WHERE s.id = ?"
)
SECTION_BY_ORDINAL = (
    f"SELECT {_SECTION_COLUMNS} FROM sections s JOIN documents d ON d.doc_id = s.doc_id"
    " WHERE s.doc_id = ? AND s.ordinal = ?"
)
SECTIONS_AROUND = (
    f"SELECT {_SECTION_COLUMNS} FROM sections s JOIN documents d ON d.doc_id = s.doc_id"
    " WHERE s.doc_id = ? AND s.ordinal BETWEEN ? AND ? AND s.ordinal <> ?"
    " ORDER BY s.ordinal"
)
DOCUMENTS_IN_ORDER = "SELECT path, title, summary, n_sections FROM documents ORDER BY path"
EMBEDDING_MODEL = "SELECT model FROM embeddings LIMIT 1"
CREATE_VOCABULARY = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.sections_vocab"
    " USING fts5vocab(main, 'sections_fts', 'row')"
)


def document_counts_sql(n_terms: int) -> str:
    """``(term, doc)`` of the FTS vocabulary for ``n_terms`` bound terms (absent: no row)."""
    marks = ", ".join("?" * n_terms)
    return f"SELECT term, doc FROM temp.sections_vocab WHERE term IN ({marks})"

_GLOB_CHARS = "*?["


def path_filter_clause(entries: Sequence[str] | None) -> tuple[str, list[str]]:
    """The ``in`` filter of seed 000 over ``d.path``, as ``(sql, params)``.

    Each entry is a GLOB; an entry without ``*``, ``?`` or ``[`` also matches everything
    below it as a folder (``entry || '/*'``). No entries gives ``("1", [])``.
    """
    if not entries:
        return "1", []
    terms: list[str] = []
    params: list[str] = []
    for entry in entries:
        if any(ch in entry for ch in _GLOB_CHARS):
            terms.append("d.path GLOB ?")
            params.append(entry)
        else:
            terms.append("(d.path GLOB ? OR d.path GLOB ? || '/*')")
            params.extend([entry, entry])
    return "(" + " OR ".join(terms) + ")", params


def search_sql(filter_sql: str) -> str:
    """One lexical pass: MATCH ``?``, the path filter, rank then id, ``LIMIT ?``."""
    return (
        "SELECT f.id, d.path, s.heading_path, s.kind,"
        " snippet(sections_fts, 2, '**', '**', '…', 20) AS snip,"
        " bm25(sections_fts, 0.0, 2.0, 1.0) AS rank"
        " FROM sections_fts f JOIN sections s ON s.id = f.id"
        " JOIN documents d ON d.doc_id = s.doc_id"
        f" WHERE sections_fts MATCH ? AND {filter_sql}"
        " ORDER BY rank, f.id LIMIT ?"
    )


def grep_sql(filter_sql: str, *, literal: bool) -> str:
    """Grep candidates in id order: a literal case-insensitive ``instr`` scan, or (for
    regex mode) every section under the path filter. Literal mode binds the pattern
    first and ``LIMIT ?`` last; regex mode binds only the filter parameters."""
    where = f"instr(lower(s.text), lower(?)) > 0 AND {filter_sql}" if literal else filter_sql
    tail = " LIMIT ?" if literal else ""
    return (
        "SELECT s.id, d.path, s.heading_path, s.text FROM sections s"
        f" JOIN documents d ON d.doc_id = s.doc_id WHERE {where} ORDER BY s.id{tail}"
    )


def dense_candidates_sql(filter_sql: str) -> str:
    """Every embedding row under the path filter, with its section's display fields."""
    return (
        "SELECT e.section_id, e.vec, d.path, s.heading_path, s.kind, s.text"
        " FROM embeddings e JOIN sections s ON s.id = e.section_id"
        f" JOIN documents d ON d.doc_id = s.doc_id WHERE e.model = ? AND {filter_sql}"
    )
