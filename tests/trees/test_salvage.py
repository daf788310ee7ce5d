"""trees/salvage: what still decodes is merged into another store; the rest is listed."""

from __future__ import annotations

from repoctx import open_store
from repoctx.trees import Salvage
from tests.conftest import lww_record

MEMORY = "repo-context-memory"


def _source(tmp_path):
    store = open_store(tmp_path / "src", repo_id="demo", replica_id="r-src")
    with store.batch() as batch:
        batch.merge(store.key(), lww_record(store, files=1))
        for n in range(5):
            batch.merge(store.key("mem", f"t/{n}"), lww_record(store, body=f"note {n}"))
        batch.put_local("vectors/embedder/demo", {"name": "none"})
    bad = store.key("mem", "t/3").encode()
    with store.trees.env.begin(write=True, db=store.trees.dbs[MEMORY]) as txn:
        txn.put(bad, b"\x81\xa4body\xc1")
    path = store.trees.path
    store.close()
    return path


def test_sound_records_are_merged_and_the_damaged_one_is_named(tmp_path):
    source = _source(tmp_path)
    dest = open_store(tmp_path / "dest", repo_id="demo", replica_id="r-dest")
    with Salvage(source, tmp_path / "work") as old:
        copied = old.copy_into(dest.trees, [MEMORY])
        assert old.repo_ids() == ["demo"]
        assert old.local_items(["replica", "vectors/embedder/", "missing"]) == {
            "replica": "r-src", "vectors/embedder/demo": {"name": "none"}}
    assert copied.records == {MEMORY: 4} and copied.lost_records == 1
    assert [(d.tree, d.key) for d in copied.lost] == [(MEMORY, "repo/demo/mem/t/3")]
    assert sorted(k for k, _ in dest.trees.scan("repo/demo/mem/")) == [
        f"repo/demo/mem/t/{n}" for n in (0, 1, 2, 4)]
    dest.close()


def test_copying_twice_merges_instead_of_duplicating(tmp_path):
    source = _source(tmp_path)
    dest = open_store(tmp_path / "dest", repo_id="demo", replica_id="r-dest")
    with Salvage(source, tmp_path / "work") as old:
        old.copy_into(dest.trees, [MEMORY])
        old.copy_into(dest.trees, [MEMORY])
    assert len(dest.trees.scan("repo/demo/mem/")) == 4
    dest.close()
