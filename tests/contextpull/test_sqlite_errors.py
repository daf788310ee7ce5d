import inspect
import sqlite3

import pytest

from repoctx.contextpull.sqlite_errors import (
    SQLITE_ERROR_MAP,
    translate,
    translating_sqlite_errors,
)
from repoctx.errors import ContextPullError, Fts5UnavailableError, NotAStoreError


def test_every_sqlite3_exception_class_is_mapped() -> None:
    classes = {
        obj
        for _, obj in inspect.getmembers(sqlite3, inspect.isclass)
        if issubclass(obj, Exception) and obj.__module__ == "sqlite3"
    }
    mapped = {cls for cls, _ in SQLITE_ERROR_MAP}
    assert classes <= mapped


def test_not_a_database_becomes_not_a_store() -> None:
    error = translate(sqlite3.DatabaseError("file is not a database"), "opening x")
    assert isinstance(error, NotAStoreError) and "opening x" in str(error)


def test_fts_messages_become_fts_unavailable_naming_binding() -> None:
    error = translate(sqlite3.OperationalError("no such module: fts5"), "q")
    assert isinstance(error, Fts5UnavailableError)
    assert "SQLite" in str(error) and sqlite3.sqlite_version in str(error)


def test_context_manager_chains_the_original() -> None:
    with pytest.raises(ContextPullError) as info, translating_sqlite_errors("doing"):
        sqlite3.connect(":memory:").execute("SELEC 1")
    assert isinstance(info.value.__cause__, sqlite3.OperationalError)
