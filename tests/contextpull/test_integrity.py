"""contextpull/integrity: an export checked by SQLite, against the schema and its counts."""

from __future__ import annotations

import random
import shutil
import sqlite3

from repoctx.contextpull import check_export
from repoctx.contextpull.integrity import expected_columns
from tests.damage import flip


def test_the_conformance_export_is_sound(corpus_store):
    assert check_export(corpus_store) == []


def test_the_schema_names_contextpulls_tables():
    tables = expected_columns()
    assert {"meta", "documents", "sections", "sections_fts", "embeddings"} <= set(tables)
    assert tables["sections_fts"] == ["id", "heading_path", "text"]


def test_a_missing_file_is_a_problem(tmp_path):
    assert check_export(tmp_path / "none.sqlite") == [f"no export at {tmp_path / 'none.sqlite'}"]


def test_flipped_bytes_fail_sqlites_integrity_check(corpus_store, tmp_path):
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(corpus_store, copy)
    flip(copy, 64, random.Random(5), start=4096)
    problems = check_export(copy)
    assert problems and all(p.startswith(str(copy)) for p in problems)


def test_a_missing_column_and_disagreeing_counts_are_named(corpus_store, tmp_path):
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(corpus_store, copy)
    with sqlite3.connect(copy) as conn:
        conn.execute("DELETE FROM sections WHERE ordinal = 0")
    assert any("sections" in p and "declare" in p for p in check_export(copy))
    with sqlite3.connect(copy) as conn:
        conn.execute("ALTER TABLE summary_cache DROP COLUMN model")
    assert any("table summary_cache has columns" in p for p in check_export(copy))
