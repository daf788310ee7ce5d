"""retrieval/index/sql: the search tables' SQL text, checked without a database."""

from repoctx.retrieval.index import sql


def test_every_table_has_one_create_statement() -> None:
    created = [s.split("(")[0].split()[-1] if "VIRTUAL" not in s else s.split()[3]
               for s in sql.DDL if " TABLE " in s]
    assert sorted(created) == sorted(sql.TABLES)
    assert set(sql.FTS_TABLES) <= set(sql.TABLES)


def test_text_tables_are_contentless_porter_and_names_trigram() -> None:
    text, aux, names = (s for s in sql.DDL if "fts5" in s)
    for statement in (text, aux):
        assert "content = ''" in statement and sql.PORTER_TOKENIZE in statement
    assert sql.AUX_TABLE in aux and "trigram" in names and "body" not in names


def test_sections_read_from_an_attached_schema() -> None:
    statement = sql.sections_at("previous")
    assert statement.startswith("SELECT s.rowid, s.id, d.path")
    assert "previous.sections s JOIN previous.documents d" in statement
    assert "previous.repoctx_sections r" in statement
    assert statement.endswith("WHERE s.rowid IN (SELECT value FROM json_each(?))")
    assert "main.sections" in sql.SECTIONS and "{schema}" not in sql.SECTIONS


def test_update_reads_changed_documents_in_order() -> None:
    expected = sql.SECTIONS + f" WHERE s.doc_id IN ({sql.CHANGED})" + sql.IN_ORDER
    assert expected == sql.SECTIONS_OF_CHANGED
    assert sql.SECTIONS_MISSING_ROWS.endswith(sql.IN_ORDER)
    assert "NOT IN (SELECT rowid FROM repoctx_search_rows)" in sql.SECTIONS_MISSING_ROWS
    assert sql.INSERT_DRIFTED.endswith(sql.DRIFTED_DOCS)


def test_fts_row_builders_name_the_table() -> None:
    assert sql.insert_text_row("t") == (
        "INSERT INTO t(rowid, name, path, heading, body) VALUES (?, ?, ?, ?, ?)")
    assert sql.delete_text_row("t") == (
        "INSERT INTO t(t, rowid, name, path, heading, body) VALUES ('delete', ?, ?, ?, ?, ?)")
    assert sql.optimize("t") == "INSERT INTO t(t) VALUES ('optimize')"
    assert sql.DELETE_NAMES_ROW.count("?") == sql.INSERT_NAMES_ROW.count("?") == 4


def test_marks_and_drops() -> None:
    assert sql.drop_table("x") == "DROP TABLE IF EXISTS x"
    assert sql.create_mark("m") == "CREATE TEMP TABLE IF NOT EXISTS m(x)"
    assert sql.drop_mark("m") == "DROP TABLE temp.m"


def test_placeholders_match_the_columns() -> None:
    assert sql.INSERT_SYMBOL.count("?") == 9
    assert sql.INSERT_ROW.count("?") == 3 and sql.INSERT_SYMBOL_PART.count("?") == 2
    assert sql.SYMBOLS_SEEN_OF_PATHS.startswith(sql.SYMBOLS_SEEN + " WHERE")


def test_verify_statements_name_each_disagreeing_row_first() -> None:
    tables = {table for table, _ in sql.STRAY_ROWS}
    assert tables == {"repoctx_search_rows", "repoctx_search_symbols",
                      "repoctx_search_symbol_parts", "repoctx_search_docs"}
    assert all(statement.startswith("SELECT ") for _, statement in sql.STRAY_ROWS)
    assert sql.COUNT_NAMES_ROWS == "SELECT count(*) FROM repoctx_search_names_docsize"
    assert sql.SUBTRACT_VOCAB.startswith("UPDATE repoctx_search_vocab SET n = n - ?")
