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


def _killed_mid_write(path: Path) -> None:
    """Leave ``path`` as a SIGKILLed patch does: a write transaction that spilled pages
    into the file, with its hot journal beside it."""
    import signal
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", f"""
import sqlite3, time
conn = sqlite3.connect({str(path)!r}, isolation_level=None)
conn.execute("PRAGMA cache_size = 8")  # spill: the file itself is overwritten
conn.execute("BEGIN")
conn.execute("UPDATE t SET x = x + 1000")
conn.executemany("INSERT INTO t VALUES (?)", ((i,) for i in range(5000)))
print("written", flush=True)
time.sleep(60)
"""], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline() == "written\n"
    child.send_signal(signal.SIGKILL)
    child.wait()


def test_a_read_only_open_rolls_back_what_a_killed_writer_left(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    conn = connect_new(path)
    conn.execute("CREATE TABLE t(x)")
    conn.executemany("INSERT INTO t VALUES (?)", ((i,) for i in range(100)))
    conn.close()
    _killed_mid_write(path)
    journal = tmp_path / "s.db-journal"
    assert journal.exists()
    plain = sqlite3.connect(read_only_uri(path), uri=True)  # what mode=ro alone meets
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        plain.execute("SELECT count(*) FROM t").fetchone()
    plain.close()
    ro = connect_read_only(path)
    assert ro.execute("SELECT count(*), max(x) FROM t").fetchone() == (100, 99)  # the old state
    ro.close()
    assert not journal.exists()
