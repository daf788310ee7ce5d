"""The open export: read-only, reopened when replaced, SQLite errors translated."""

import os
import sqlite3

import pytest

from repoctx.errors import ToolError
from repoctx.retrieval.search.state import (
    connect_read_only,
    forget_state,
    search_state,
    sqlite_errors,
)
from tests.retrieval.search_repo import indexed_export


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    return indexed_export(tmp_path_factory.mktemp("state"))


def test_the_connection_is_read_only_and_leaves_the_file_untouched(export):
    before = os.stat(export).st_mtime_ns
    conn = connect_read_only(export)
    with pytest.raises(sqlite3.OperationalError):
        conn.execute("DELETE FROM documents")
    conn.close()
    assert os.stat(export).st_mtime_ns == before
    assert not (export.parent / (export.name + "-journal")).exists()


def test_state_is_cached_and_reopened_when_the_file_changes(export):
    forget_state(export)
    first = search_state(export)
    assert search_state(export) is first and first.indexed
    assert first.sections() > 0 and "cart" in first.vocabulary()
    os.utime(export, ns=(1, os.stat(export).st_mtime_ns + 1000))
    assert search_state(export) is not first


def test_a_missing_export_is_a_tool_error(tmp_path):
    with pytest.raises(ToolError, match="no ContextPull export"):
        search_state(tmp_path / "absent.sqlite")


def test_sqlite_errors_become_tool_errors():
    with pytest.raises(ToolError, match="search: doing it failed"), sqlite_errors("doing it"):
        raise sqlite3.DatabaseError("disk image is malformed")
