"""maintenance/repair: derived trees rebuilt, memory kept from what decodes or a backup."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from repoctx import open_store
from repoctx.errors import StoreBusyError, StoreFormatError, StoreReplacedError
from repoctx.maintenance import repair
from repoctx.maintenance.repair import DERIVED, KEPT
from repoctx.reconcile import reconcile_pass, repair_lock, writer_lock, writers_lock
from repoctx.retrieval import open_workspace, refresh_export
from repoctx.tools import registry as tools
from repoctx.trees import TREES
from tests.damage import derived_view, make_repo, memory_view

MEMORY = "repo-context-memory"


@pytest.fixture
def indexed(tmp_path):
    repo = make_repo(tmp_path / "repo", packages=2, modules=2)
    with open_store(repo) as store:
        reconcile_pass(store, repo)
    with open_workspace(repo) as ws:
        refresh_export(ws.store, repo, ws.export)
        for n in range(3):
            tools.call(ws, "repocontext_remember",
                       {"topic": "t", "title": f"note {n}", "body": f"body {n}"})
        replica = ws.store.replica_id
    golden = tmp_path / "golden"
    shutil.copytree(repo / ".repoctx", golden, ignore=shutil.ignore_patterns("*.lock"))
    return repo, golden, replica


def _wreck_memory(lmdb_dir):
    import lmdb

    env = lmdb.open(str(lmdb_dir), max_dbs=32)
    try:
        with env.begin(write=True, db=env.open_db(MEMORY.encode())) as txn:
            for key, raw in list(txn.cursor()):
                txn.put(key, b"\xc1\xc1" + bytes(raw)[2:])  # neither msgpack nor zlib
    finally:
        env.close()


def test_every_tree_is_either_derived_or_kept():
    assert sorted(DERIVED + KEPT) == sorted(t.name for t in TREES)
    assert MEMORY in KEPT and "repo-context-session" in KEPT


def test_repair_of_a_sound_store_changes_nothing_tools_read(indexed):
    repo, golden, replica = indexed
    report = repair(repo)
    assert report.replica_id == replica and report.replica_kept and report.lost_records == 0
    assert report.kept[MEMORY] == 3
    store = repo / ".repoctx" / "lmdb"
    assert derived_view(store) == derived_view(golden / "lmdb")
    assert memory_view(store) == memory_view(golden / "lmdb")
    assert not (repo / ".repoctx" / "repair.tmp").exists()


def test_lost_memory_is_reported_and_taken_back_from_a_backup(indexed, tmp_path):
    repo, golden, _ = indexed
    _wreck_memory(repo / ".repoctx" / "lmdb")
    alone = repair(repo)
    assert alone.lost_records == 3 and alone.kept[MEMORY] == 0
    assert {d.tree for d in alone.lost} == {MEMORY}
    shutil.rmtree(repo / ".repoctx")
    shutil.copytree(golden, repo / ".repoctx")
    _wreck_memory(repo / ".repoctx" / "lmdb")
    helped = repair(repo, source=golden)
    assert helped.recovered == 3 and helped.kept[MEMORY] == 3
    assert memory_view(repo / ".repoctx" / "lmdb") == memory_view(golden / "lmdb")


def test_repair_waits_for_no_indexer_and_needs_a_store(indexed, tmp_path):
    repo, _, _ = indexed
    with writer_lock(repo / ".repoctx"), pytest.raises(StoreBusyError):
        repair(repo)
    with pytest.raises(StoreFormatError, match="repoctx index"):
        repair(tmp_path / "elsewhere")


_WRITER = """
import sys, pathlib
from repoctx.errors import StoreBusyError
from repoctx.retrieval import open_workspace
from repoctx.tools import registry as tools
repo, stop, acked = (pathlib.Path(a) for a in sys.argv[1:])
n = 0
with acked.open("a") as out:
    while not stop.exists():
        n += 1
        try:
            with open_workspace(repo) as ws:
                key = tools.call(ws, "repocontext_remember",
                                 {"topic": "stream", "id": f"w{n}", "body": f"write {n}"})["key"]
        except StoreBusyError as exc:
            print(f"refused: {exc}", file=sys.stderr, flush=True)
            continue
        out.write(key + "\\n")
        out.flush()
"""


def _acked(path):
    return path.read_text().split() if path.exists() else []


def test_every_write_acknowledged_while_repair_runs_is_in_the_store(tmp_path):
    """A child process streams memory writes while a real `repoctx repair` runs; every
    write the child was answered a key for is in the repaired store."""
    repo = make_repo(tmp_path / "repo", packages=5, modules=6)
    with open_store(repo) as store:
        reconcile_pass(store, repo)
    stop, acked = tmp_path / "stop", tmp_path / "acked"
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(repo), str(stop), str(acked)],
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while len(_acked(acked)) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        before = len(_acked(acked))
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "repoctx", "repair", str(repo), "--json"],
                              capture_output=True, text=True, timeout=300)
        took = time.monotonic() - started
        assert done.returncode == 0, done.stderr
        while len(_acked(acked)) < before + 3 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop.touch()
        _, refused = writer.communicate(timeout=60)
    keys = _acked(acked)
    assert len(keys) >= before + 3, f"the writer stalled: {refused}"
    report = json.loads(done.stdout)
    assert report["lostRecords"] == 0 and report["meanwhile"] == 0
    with open_workspace(repo) as ws:
        missing = [k for k in keys if "write" not in
                   (tools.call(ws, "repocontext_recall", {"key": k})["fields"].get("body") or "")]
    assert not missing, (f"{len(missing)} of {len(keys)} acknowledged writes lost "
                         f"(repair took {took:.1f} s)")
    for line in refused.splitlines():
        assert str(repo / ".repoctx") in line


def test_a_memory_write_waits_for_a_repair_then_names_the_busy_store(indexed, monkeypatch):
    repo = indexed[0]
    directory = repo / ".repoctx"
    with open_workspace(repo) as ws, repair_lock(directory):
        started = time.monotonic()
        with pytest.raises(StoreBusyError) as caught, writers_lock(directory, wait_seconds=0.3):
            pass
        assert time.monotonic() - started >= 0.3
        assert f"the store at {directory} is busy: `repoctx repair` (pid {os.getpid()})" \
            in str(caught.value)
        before = tools.call(ws, "repocontext_list_topics", {})
        # the tool waits its bound, then answers the same error with nothing written
        monkeypatch.setattr("repoctx.reconcile.lock.WRITE_WAIT_SECONDS", 0.2)
        with pytest.raises(StoreBusyError, match="is busy"):
            tools.call(ws, "repocontext_remember", {"topic": "t", "body": "late"})
        assert tools.call(ws, "repocontext_list_topics", {}) == before


def test_a_handle_opened_before_the_swap_refuses_to_write_into_the_old_copy(indexed):
    repo = indexed[0]
    with open_workspace(repo) as ws:
        done = subprocess.run([sys.executable, "-m", "repoctx", "repair", str(repo)],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert "meanwhile: 0 writes" in done.stdout
        with pytest.raises(StoreReplacedError, match="rebuilt by `repoctx repair`"):
            tools.call(ws, "repocontext_remember", {"topic": "t", "body": "stale"})
    with open_workspace(repo) as ws:
        assert tools.call(ws, "repocontext_remember", {"topic": "t", "body": "fresh"})["key"]
