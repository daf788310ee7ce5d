from repoctx.contextpull import sql


def test_no_filter_is_true() -> None:
    assert sql.path_filter_clause(None) == ("1", [])
    assert sql.path_filter_clause([]) == ("1", [])


def test_plain_entry_also_matches_as_folder() -> None:
    clause, params = sql.path_filter_clause(["docs"])
    assert clause == "((d.path GLOB ? OR d.path GLOB ? || '/*'))"
    assert params == ["docs", "docs"]


def test_glob_entries_are_used_as_is_and_joined_with_or() -> None:
    clause, params = sql.path_filter_clause(["*.md", "a?c", "[ab].txt"])
    assert clause == "(d.path GLOB ? OR d.path GLOB ? OR d.path GLOB ?)"
    assert params == ["*.md", "a?c", "[ab].txt"]


def test_search_sql_orders_by_rank_then_id_with_contract_weights() -> None:
    text = sql.search_sql("1")
    assert "bm25(sections_fts, 0.0, 2.0, 1.0)" in text
    assert "snippet(sections_fts, 2, '**', '**', '…', 20)" in text
    assert text.endswith("ORDER BY rank, f.id LIMIT ?")


def test_grep_sql_literal_uses_instr_lower_not_fts() -> None:
    literal = sql.grep_sql("X", literal=True)
    assert "instr(lower(s.text), lower(?)) > 0 AND X" in literal
    assert "sections_fts" not in literal and literal.endswith("ORDER BY s.id LIMIT ?")
    assert "instr" not in sql.grep_sql("X", literal=False)


def test_dense_sql_filters_model_and_path() -> None:
    assert "WHERE e.model = ? AND (d.path GLOB ?)" in sql.dense_candidates_sql("(d.path GLOB ?)")
