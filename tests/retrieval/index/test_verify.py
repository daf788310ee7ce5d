"""retrieval/index/verify: the search tables checked against the sections they index."""

import sqlite3

import pytest

from repoctx.contextpull import export_directory
from repoctx.retrieval.index.verify import check_search_tables
from tests.retrieval.search_repo import indexed_export, write_repo


@pytest.fixture
def conn(tmp_path):
    conn = sqlite3.connect(indexed_export(tmp_path))
    yield conn
    conn.close()


def test_a_fresh_build_is_sound(conn):
    assert check_search_tables(conn) == []


def test_an_export_without_search_tables_has_nothing_to_check(tmp_path):
    root = tmp_path / "repo"
    write_repo(root)
    export_directory(root, tmp_path / "plain.sqlite")
    with sqlite3.connect(tmp_path / "plain.sqlite") as plain:
        assert check_search_tables(plain) == []


def test_a_lost_row_a_stray_symbol_and_drifted_docs_are_named(conn):
    (sid,) = conn.execute("SELECT section_id FROM repoctx_search_rows LIMIT 1").fetchone()
    conn.execute("DELETE FROM repoctx_search_rows WHERE section_id = ?", (sid,))
    conn.execute("UPDATE repoctx_search_symbols SET section_rowid = -1 WHERE id = 1")
    conn.execute("UPDATE repoctx_search_docs SET sha256 = 'x' WHERE rowid = 1")
    problems = check_search_tables(conn)
    assert any(p.startswith("repoctx_search_rows: 1 rows") and sid in p for p in problems)
    assert any(p.startswith("repoctx_search_symbols: 1 rows") for p in problems)
    assert any(p.startswith("repoctx_search_docs:") for p in problems)


def test_missing_fts_rows_and_miscounted_words_are_named(conn):
    (rowid,) = conn.execute("SELECT rowid FROM repoctx_search_names_docsize LIMIT 1").fetchone()
    conn.execute("DELETE FROM repoctx_search_names_docsize WHERE id = ?", (rowid,))
    conn.execute("UPDATE repoctx_search_vocab SET n = n + 2 WHERE term = 'refund'")
    problems = check_search_tables(conn)
    assert any(p.startswith("repoctx_search_names: ") and "rows for" in p for p in problems)
    assert any("refund (3, not 1)" in p for p in problems)
