import os
import sqlite3
from pathlib import Path

import pytest

from repoctx.contextpull import Reader
from repoctx.errors import Fts5UnavailableError, NotAStoreError, SchemaVersionError

DOCS = {"a.md": [("A", "prose", "alpha text")]}


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(NotAStoreError, match="no such file"):
        Reader(tmp_path / "nope.db")
    assert not (tmp_path / "nope.db").exists()


def test_not_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    path.write_bytes(b"hello, I am text and not a database at all" * 10)
    with pytest.raises(NotAStoreError):
        Reader(path)


def test_sqlite_without_meta(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    sqlite3.connect(path).execute("CREATE TABLE t(x)").connection.commit()
    with pytest.raises(NotAStoreError):
        Reader(path)


def test_meta_without_version(raw_store) -> None:
    with pytest.raises(NotAStoreError, match="schema_version"):
        Reader(raw_store(DOCS, schema_version=None))


def test_other_major_refused_naming_both(raw_store) -> None:
    with pytest.raises(SchemaVersionError) as info:
        Reader(raw_store(DOCS, schema_version="2.0"))
    assert "2.0" in str(info.value) and "1" in str(info.value).replace("2.0", "")


def test_minor_version_opens(raw_store) -> None:
    with Reader(raw_store(DOCS, schema_version="1.7")) as reader:
        assert reader.meta.schema_version == "1.7"
        assert reader.read("a.md#0")["text"] == "alpha text"


def test_fts_table_missing_names_binding(raw_store) -> None:
    with pytest.raises(Fts5UnavailableError) as info:
        Reader(raw_store(DOCS, with_fts=False))
    assert "SQLite" in str(info.value) and sqlite3.sqlite_version in str(info.value)


def test_open_and_read_leave_file_unchanged(corpus_store: Path) -> None:
    before = corpus_store.read_bytes(), os.stat(corpus_store).st_mtime_ns
    siblings = set(corpus_store.parent.iterdir())
    with Reader(corpus_store) as reader:
        reader.search("refund window")
        reader.grep("retry", regex=True)
        reader.read("specs.md#1", context=2)
        reader.neighbours("specs.md#1")
        reader.index("policies/")
    assert (corpus_store.read_bytes(), os.stat(corpus_store).st_mtime_ns) == before
    assert set(corpus_store.parent.iterdir()) == siblings


def test_meta_read_once(corpus_store: Path) -> None:
    with Reader(corpus_store) as reader:
        assert reader.meta.index_mode == "flat"
        assert reader.meta.index_tokens > 0
        assert reader.index()["text"] == reader.meta.index_text
        assert reader.meta.index_text.startswith("ContextPull index · ")
