"""contextpull/write/leftovers: what killed exports leave beside an output is removed next time."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from repoctx.contextpull.write.leftovers import (
    STALE_SECONDS,
    pid_alive,
    remove_leftovers,
    temporary_name,
)
from tests.kill import kill_while_exporting


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_only_files_of_gone_or_stale_exports_to_this_output_are_removed(tmp_path):
    out = tmp_path / "out.sqlite"
    dead, alive = _dead_pid(), os.getppid()
    assert not pid_alive(dead) and pid_alive(alive) and not pid_alive(0)
    gone = [temporary_name(out, dead), tmp_path / f".out.sqlite.{dead}.tmp-journal"]
    kept = [temporary_name(out, alive), temporary_name(out),  # a live export's, and ours
            temporary_name(tmp_path / "other.sqlite", dead), tmp_path / "out.sqlite.1.tmp",
            tmp_path / f".out.sqlite.{dead}.tmpx"]
    stale = temporary_name(out, alive + 1_000_000)  # a pid no process has
    old = temporary_name(out, 1)  # pid 1 is alive, but nothing wrote this for days
    for path in [*gone, *kept, stale, old]:
        path.write_bytes(b"x")
    long_ago = time.time() - STALE_SECONDS - 60
    os.utime(old, (long_ago, long_ago))
    removed = remove_leftovers(out)
    assert removed == sorted(p.name for p in [*gone, stale, old])
    assert all(p.exists() for p in kept) and not any(p.exists() for p in [*gone, stale, old])
    assert remove_leftovers(tmp_path / "missing" / "out.sqlite") == []


def test_the_next_export_removes_what_a_sigkilled_export_left(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    text = "lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 12
    for i in range(1500):
        (docs / f"d{i}.md").write_text(f"# Doc {i}\n\n{text}\n\n## Part {i}\n\n{text}\n")
    out = tmp_path / "out.sqlite"
    export = [sys.executable, "-m", "repoctx", "export", str(docs), "--out", str(out)]
    tmp = kill_while_exporting(export, out)
    assert tmp.exists() and not out.exists()  # a leftover, no export
    run = subprocess.run([*export, "--json"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["leftoversRemoved"] == [tmp.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "out.sqlite"]
    with sqlite3.connect(out) as db:
        assert db.execute("SELECT count(*) FROM documents").fetchone() == (1500,)


def test_temporary_names_sit_beside_the_output(tmp_path):
    assert temporary_name(tmp_path / "x.sqlite", 42) == tmp_path / ".x.sqlite.42.tmp"
    assert Path(temporary_name(tmp_path / "x.sqlite")).name == f".x.sqlite.{os.getpid()}.tmp"
