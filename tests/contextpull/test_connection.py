import sqlite3
from pathlib import Path

import pytest

from repoctx.contextpull.connection import connect_new, connect_read_only, read_only_uri


def test_uri_escapes_special_characters(tmp_path: Path) -> None:
    uri = read_only_uri(tmp_path / "a b#?.db")
    assert uri.startswith("file:///") and uri.endswith("a%20b%23%3F.db?mode=ro")


def test_read_only_connection_refuses_writes(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    conn = connect_new(path)
    conn.execute("CREATE TABLE t(x)")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()
    ro = connect_read_only(path)
    with pytest.raises(sqlite3.OperationalError):
        ro.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(sqlite3.OperationalError):
        ro.execute("CREATE TEMP TABLE tt(x)")
