"""trees/batch: read-merge-write in one transaction, all or nothing; unchanged writes
nothing; the map grows under a batch instead of failing it."""

import contextlib
import gc
import weakref

import pytest

from repoctx import open_store
from repoctx.crdt import add_wins_set, record
from repoctx.crdt.record import KEY
from repoctx.trees import MAX_KEY_BYTES, lmdb_key
from tests.conftest import lww_record


def test_a_batch_that_raises_midway_writes_nothing(store):
    with pytest.raises(RuntimeError), store.batch() as b:
        b.merge(store.key("file", "a.py"), lww_record(store, size=1))
        b.merge(store.key("symbol", "a.f"), lww_record(store, kind="function"))
        raise RuntimeError("boom")
    assert store.get(store.key("file", "a.py")) is None
    assert store.get(store.key("symbol", "a.f")) is None
    assert store.trees.writes == 0


def test_batch_reads_its_own_writes_and_update_sees_current(store):
    key = store.key("xref", "Model")
    with store.batch() as b:
        for name in ("a.X", "a.Y"):
            b.update(key, lambda cur, n=name: record.write(
                {"dependents": add_wins_set.add(
                    record.field_state(cur, "dependents", add_wins_set), n, store.replica_id)},
                store.tick()))
        assert b.get(key) is not None
    assert record.value(store.get(key))["dependents"] == {"a.X", "a.Y"}


def test_unchanged_merge_writes_nothing(store):
    key = store.key("file", "a.py")
    delta = lww_record(store, size=1)
    store.trees.merge(key, delta)
    before = (store.trees.writes, store.trees.commits)
    store.trees.merge(key, delta)
    assert (store.trees.writes, store.trees.commits) == before


def test_a_store_filled_past_its_map_size_keeps_working(tmp_path):
    store = open_store(tmp_path, repo_id="demo", map_size=1 << 20)
    try:
        for start in range(0, 6000, 1000):
            with store.batch() as b:
                for i in range(start, start + 1000):
                    b.merge(store.key("content", f"f{i}.txt"), lww_record(store, body="y" * 500))
        assert store.trees.env.info()["map_size"] > 1 << 20
        assert len(store.trees.scan("repo/demo/content/")) == 6000
    finally:
        store.close()

def test_store_local_values_are_read_back_and_deleted_in_the_batch(store):
    with store.batch() as b:
        b.put_local("probe", {"n": [1, 2]})
        assert b.get_local("probe") == {"n": [1, 2]}
    assert store.trees.get_local("probe") == {"n": [1, 2]}
    with store.batch() as b:
        b.delete_local("probe")
        assert b.get_local("probe", "gone") == "gone"
    assert store.trees.get_local("probe") is None


def test_written_counts_records_per_tree(store):
    with store.batch() as b:
        b.merge(store.key("file", "a.py"), lww_record(store, size=1))
        b.merge(store.key("file", "b.py"), lww_record(store, size=1))
        b.merge(store.key("mem", "t/x"), lww_record(store, body="x"))
        assert b.update(store.key("mem", "t/y"), lambda cur: None) is None  # no delta
    assert b.written == {"repo-context-structural": 2, "repo-context-memory": 1}


def test_an_overlong_key_carries_its_full_name(store):
    key = store.key("symbol", "pkg." + "y" * MAX_KEY_BYTES)
    with store.batch() as b:
        stored = b.merge(key, lww_record(store, kind="class"))
    assert record.full_key(stored) == key and KEY in stored.fields
    assert len(lmdb_key(key)) <= MAX_KEY_BYTES


def test_a_corrupt_stored_value_is_replaced_and_reported(store):
    key = store.key("file", "a.py")
    store.trees.merge(key, lww_record(store, size=1))
    with store.trees.env.begin(write=True, db=store.trees.dbs["repo-context-structural"]) as txn:
        txn.put(lmdb_key(key), b"\xc1junk")
    with store.batch() as b:
        b.merge(key, lww_record(store, size=2))
    assert [e.key for e in b.repaired] == [key]
    assert record.value(store.get(key))["size"] == 2


def test_update_sees_tombstones(store):
    key = store.key("xref", "Gone")
    tags = add_wins_set.add(add_wins_set.empty(), "a.X", "r")
    store.trees.merge(key, record.write({"dependents": tags}, store.tick()))
    store.trees.merge(key, record.write({"dependents": add_wins_set.remove(tags, "a.X")},
                                        store.tick()))
    assert store.get(key) is None  # hidden from readers
    seen = []
    with store.batch() as b:
        b.update(key, lambda cur: seen.append(cur))
    assert seen[0] is not None and record.is_tombstone(seen[0])


def test_nothing_written_commits_nothing(tmp_path):
    with open_store(tmp_path, repo_id="demo") as s:
        before = s.trees.commits
        with s.batch() as b:
            b.get(s.key("file", "none.py"))
        assert s.trees.commits == before
        with pytest.raises(ValueError), s.batch():
            raise ValueError


@pytest.mark.parametrize("fails", [False, True], ids=["committed", "raised"])
def test_a_finished_batch_holds_nothing_its_updates_closed_over(store, fails):
    # An update function closing over its batch's holder is a cycle until the batch
    # drops its replay log; then reference counting frees it, no collector needed.
    class Holder:
        batch = None

    holder = Holder()
    alive = weakref.ref(holder)
    gc.disable()
    try:
        with contextlib.suppress(RuntimeError), store.batch() as batch:
            holder.batch = batch
            batch.update(store.key("file", "a.py"),
                         lambda cur, held=holder: lww_record(store, size=1) if held else None)
            if fails:
                raise RuntimeError("boom")
        del holder, batch
        assert alive() is None
    finally:
        gc.enable()
