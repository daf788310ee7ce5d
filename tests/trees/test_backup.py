"""trees/backup: compact, verified copies with room to write, nothing left on failure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import lmdb
import pytest

from repoctx import open_store
from repoctx.crdt import lww_register, record
from repoctx.errors import StoreIOError
from repoctx.store import Store
from repoctx.trees import LOCAL_TREE
from repoctx.trees.backup import _verify, copy_map_size


def _sympy_sized(store: Store, records: int = 24_000) -> None:
    """About 100 MB of data.mdb (sympy's store is ~80-95 MB), written through the trees
    API in a fraction of a second: content records of ~3 KB, plus a few other trees."""
    body = os.urandom(1500).hex()
    for start in range(0, records, 4_000):
        with store.batch() as batch:
            tick = store.tick()
            for i in range(start, start + 4_000):
                value = lww_register.set_value(lww_register.empty(), f"{body}{i}", tick,
                                               store.replica_id)
                batch.merge(store.key("content", f"pkg{i % 50}/mod{i}.py"),
                            record.write({"body": value}, tick))
                if i % 40 == 0:
                    size = lww_register.set_value(lww_register.empty(), i, tick,
                                                  store.replica_id)
                    batch.merge(store.key("file", f"pkg{i % 50}/mod{i}.py"),
                                record.write({"size": size}, tick))


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if ".tmp-" in p.name)


def test_a_sympy_sized_store_backs_up_through_a_real_process(tmp_path):
    repo = tmp_path / "repo"
    with open_store(repo, repo_id="big") as store:
        _sympy_sized(store)
        source = {s.name: s.records for s in store.stats()}
        replica = store.replica_id
    data = repo / ".repoctx" / "lmdb" / "data.mdb"
    assert data.stat().st_size > 80 << 20  # past the default 64 MiB map
    dest = tmp_path / "backup"
    run = subprocess.run([sys.executable, "-m", "repoctx", "backup", str(dest), str(repo)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "verified" in run.stdout
    assert _leftovers(tmp_path) == []
    with open_store(repo, repo_id="big", store_dir=dest) as copy:
        assert copy.replica_id != replica
        copied = {s.name: s.records for s in copy.stats()}
        assert copy.get(copy.key("content", "pkg7/mod23457.py")) is not None
        with copy.batch() as batch:  # the copy takes writes like any store
            batch.merge(copy.key("file", "new.py"), record.write({}, copy.tick()))
    assert {k: v for k, v in copied.items() if k != LOCAL_TREE} == {
        k: v for k, v in source.items() if k != LOCAL_TREE}


def test_the_copy_has_no_replica_id_and_the_same_records(tmp_path, store):
    store.merge(store.key("file", "a.py"), record.write({}, store.tick()))
    report = store.backup(tmp_path / "copy")
    assert report.path == tmp_path / "copy" / "lmdb"
    assert report.records["repo-context-structural"] == 1
    env = lmdb.open(str(report.path), readonly=True, max_dbs=20, lock=False)
    with env.begin() as txn:
        local = env.open_db(LOCAL_TREE.encode(), txn=txn, create=False)
        assert txn.get(b"replica", db=local) is None
        assert txn.get(b"format", db=local) is not None
    env.close()


def test_a_failed_backup_leaves_nothing_behind(tmp_path, store):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(StoreIOError):
        store.backup(blocker / "copy")
    assert _leftovers(tmp_path) == [] and sorted(os.listdir(tmp_path)) == ["file", "repo"]
    (tmp_path / "taken").mkdir()
    with pytest.raises(StoreIOError, match="exists"):
        store.backup(tmp_path / "taken")
    assert list((tmp_path / "taken").iterdir()) == []


def test_verification_names_every_tree_that_differs():
    with pytest.raises(StoreIOError, match="repo-context-symbol: 3 records, the store has 4"):
        _verify(Path("/x"), {"repo-context-symbol": 3, "repo-context-content": 2},
                {"repo-context-symbol": 4, "repo-context-content": 2}, [])
    with pytest.raises(StoreIOError, match="still holds replica"):
        _verify(Path("/x"), {}, {}, ["replica"])


def test_the_copy_map_has_headroom_beyond_its_data():
    assert copy_map_size(100 << 20) >= (100 << 20) + (64 << 20)
    assert copy_map_size(0) == 64 << 20
