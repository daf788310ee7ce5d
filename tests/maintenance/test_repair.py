"""maintenance/repair: derived trees rebuilt, memory kept from what decodes or a backup."""

from __future__ import annotations

import shutil

import pytest

from repoctx import open_store
from repoctx.errors import StoreBusyError, StoreFormatError
from repoctx.maintenance import repair
from repoctx.maintenance.repair import DERIVED, KEPT
from repoctx.reconcile import reconcile_pass, writer_lock
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
