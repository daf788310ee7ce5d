"""`contextpull/schema` — the DDL of a ContextPull store, in one function.

Pure; no I/O. The first six statements are ContextPull's schema, unchanged (DESIGN §5);
everything repoctx adds lives in ``repoctx_*`` tables that ContextPull readers ignore.
"""

from __future__ import annotations

SCHEMA_VERSION = "1.0"
SUPPORTED_MAJOR = 1
SECTION_MAX_CHARS = 2000
FTS_TOKENIZE = "unicode61 remove_diacritics 2 tokenchars '-_.'"
# repoctx_meta entries: who wrote the file, that FTS rows share their section's rowid, and
# the token counts behind meta.index_text (JSON, text digest -> tokens; ``index_text``).
WRITER_KEY, WRITER_NAME = "writer", "repoctx"
FTS_ROWIDS_KEY, FTS_ROWIDS_VALUE = "fts_rowids", "sections"
INDEX_COUNTS_KEY = "index_counts"
# When the stats behind ``repoctx_documents.mtime_ns`` began to be taken (ns since the
# epoch; ``contextpull/write/files``). Without it no recorded stat is trusted.
STATS_SINCE_KEY = "stats_since_ns"


def schema_statements() -> list[str]:
    """Every CREATE statement of a fresh store, in dependency order."""
    return [
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE documents(doc_id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE,"
        " title TEXT NOT NULL, summary TEXT, summary_src TEXT, sha256 TEXT NOT NULL,"
        " bytes INTEGER NOT NULL, kind TEXT NOT NULL, n_sections INTEGER NOT NULL,"
        " ingested_at TEXT NOT NULL)",
        "CREATE TABLE sections(id TEXT PRIMARY KEY,"
        " doc_id INTEGER NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,"
        " ordinal INTEGER NOT NULL, heading_path TEXT NOT NULL, level INTEGER NOT NULL,"
        " kind TEXT NOT NULL, text TEXT NOT NULL, char_len INTEGER NOT NULL,"
        " hash TEXT NOT NULL, prev_id TEXT, next_id TEXT, UNIQUE(doc_id, ordinal))",
        "CREATE VIRTUAL TABLE sections_fts USING fts5(id UNINDEXED, heading_path, text,"
        f' tokenize = "{FTS_TOKENIZE}")',
        "CREATE TABLE embeddings(section_id TEXT PRIMARY KEY"
        " REFERENCES sections(id) ON DELETE CASCADE, model TEXT NOT NULL,"
        " dim INTEGER NOT NULL, vec BLOB NOT NULL)",
        "CREATE TABLE summary_cache(sha256 TEXT PRIMARY KEY, model TEXT NOT NULL,"
        " summary TEXT NOT NULL)",
        # repoctx side tables: what ContextPull's schema cannot say.
        "CREATE TABLE repoctx_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE repoctx_documents(doc_id INTEGER PRIMARY KEY"
        " REFERENCES documents(doc_id) ON DELETE CASCADE, language TEXT, tokens INTEGER,"
        " mtime_ns INTEGER)",
        # WITHOUT ROWID: rows live in the id's own B-tree (a rowid table keeps the ids
        # twice: +2.4 MB on Django). An export of the rowid layout is not patched
        # (its table's SQL differs) but rewritten once.
        "CREATE TABLE repoctx_sections(id TEXT PRIMARY KEY"
        " REFERENCES sections(id) ON DELETE CASCADE, start_line INTEGER,"
        " end_line INTEGER, tokens INTEGER, symbol TEXT) WITHOUT ROWID",
    ]
