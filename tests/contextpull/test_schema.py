import sqlite3

from repoctx.contextpull.schema import FTS_TOKENIZE, SCHEMA_VERSION, schema_statements

CONTEXTPULL_TABLES = {
    "meta",
    "documents",
    "sections",
    "sections_fts",
    "embeddings",
    "summary_cache",
}


def test_schema_creates_contextpull_tables_and_only_prefixed_extras() -> None:
    conn = sqlite3.connect(":memory:")
    for statement in schema_statements():
        conn.execute(statement)
    names = {
        row[0]
        for row in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table')")
        if not row[0].startswith("sections_fts_")
    }
    assert names >= CONTEXTPULL_TABLES
    assert all(name.startswith("repoctx_") for name in names - CONTEXTPULL_TABLES)


def test_fts_tokenizer_and_version() -> None:
    assert FTS_TOKENIZE == "unicode61 remove_diacritics 2 tokenchars '-_.'"
    assert SCHEMA_VERSION == "1.0"
    assert any(FTS_TOKENIZE in s for s in schema_statements())
