import multiprocessing
from pathlib import Path

import lmdb
import pytest

from repoctx import open_store
from repoctx.crdt import add_wins_set, max_register, or_flag, record
from repoctx.errors import CorruptRecordError, StoreBusyError, StoreIOError, WrongTreeError
from repoctx.trees import LOCAL_TREE, TREES, Trees, error_for, lmdb_key
from repoctx.trees.lmdb_env import _ERRORS, MAX_DBS
from tests.conftest import lww_record


def test_exactly_the_named_trees_of_the_design(store):
    names = {t.name for t in store.stats()}
    assert names == {t.name for t in TREES} | {LOCAL_TREE}
    assert len(names) == 12 and len(names) <= MAX_DBS
    with store.trees.env.begin() as txn:  # records never go in the main database
        main = {k for k, _ in txn.cursor()}
    assert main == {n.encode() for n in names}


def test_read_merge_write_merges_fields(store):
    key = store.key("file", "a.py")
    store.trees.merge(key, lww_record(store, size=1, lang="python"))
    store.trees.merge(key, lww_record(store, size=2))
    assert record.value(store.get(key)) | {"$tick": 0} == {"size": 2, "lang": "python", "$tick": 0}


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


def test_wrong_tree_and_scans_in_key_order(store):
    with store.batch() as b:
        for name in ("b.py", "a.py", "c/d.py"):
            b.merge(store.key("file", name), lww_record(store, size=len(name)))
        b.merge(store.key("pkg", "c"), lww_record(store, kind="dir"))
    keys = [k for k, _ in store.trees.scan("repo/demo/file/")]
    assert keys == ["repo/demo/file/a.py", "repo/demo/file/b.py", "repo/demo/file/c/d.py"]
    with pytest.raises(WrongTreeError), store.trees.snapshot() as snap:
        list(snap.scan_tree(TREES[1], "repo/demo/file/"))


def tombstone_and_expired(store):
    flag_key, exp_key = store.key("mem", "t/flag"), store.key("mem", "t/exp")
    on = or_flag.enable(or_flag.empty(), store.replica_id)
    store.trees.merge(flag_key, record.write({"on": on}, store.tick()))
    store.trees.merge(flag_key, record.write({"on": or_flag.disable(on)}, store.tick()))
    expiry = max_register.MaxRegister(store.clock.last >> 16)  # expires "now"
    store.trees.merge(exp_key, record.merge(lww_record(store, body="x"),
                                            record.write({record.EXPIRES: expiry}, store.tick())))
    return flag_key, exp_key


def test_tombstones_and_expired_records_are_hidden_then_reaped_after_grace(store):
    flag_key, exp_key = tombstone_and_expired(store)
    assert store.get(flag_key) is None and store.get(exp_key) is None
    assert store.trees.scan("repo/demo/mem/") == []
    now = store.clock.last >> 16
    assert store.gc(now_ms=now + 1000)["repo-context-memory"] == 0  # inside the grace: kept
    with store.trees.env.begin(db=store.trees.dbs["repo-context-memory"]) as txn:
        assert txn.get(lmdb_key(flag_key)) is not None
    week = 7 * 24 * 3_600_000
    assert store.gc(now_ms=now + week + 10_000)["repo-context-memory"] == 2
    with store.trees.env.begin(db=store.trees.dbs["repo-context-memory"]) as txn:
        assert txn.get(lmdb_key(flag_key)) is None and txn.get(lmdb_key(exp_key)) is None


def test_payload_tree_is_never_compacted(store):
    assert "repo-context-vector-payload" not in store.gc(now_ms=1 << 60)


def test_a_600_byte_key_works(store):
    key = store.key("symbol", "pkg." + "x" * 600)
    store.trees.merge(key, lww_record(store, kind="class"))
    assert record.value(store.get(key))["kind"] == "class"
    assert [k for k, _ in store.trees.scan("repo/demo/symbol/")] == [key]


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


def test_a_corrupt_value_names_key_and_tree_and_scans_can_go_on(store):
    with store.batch() as b:
        for name in ("a.py", "b.py", "c.py"):
            b.merge(store.key("file", name), lww_record(store, size=1))
    with store.trees.env.begin(write=True, db=store.trees.dbs["repo-context-structural"]) as txn:
        txn.put(b"repo/demo/file/b.py", b"\xc1garbage")
    with pytest.raises(CorruptRecordError, match="repo/demo/file/b.py.*repo-context-structural"):
        store.get(store.key("file", "b.py"))
    with pytest.raises(CorruptRecordError):
        store.trees.scan("repo/demo/file/")
    seen = []
    rows = store.trees.scan("repo/demo/file/", on_corrupt=seen.append)
    assert [k for k, _ in rows] == ["repo/demo/file/a.py", "repo/demo/file/c.py"]
    assert seen[0].key == "repo/demo/file/b.py"
    store.trees.merge(store.key("file", "b.py"), lww_record(store, size=9))  # repaired
    assert record.value(store.get(store.key("file", "b.py")))["size"] == 9


def test_every_lmdb_exception_is_mapped():
    classes = {c for c in vars(lmdb).values() if isinstance(c, type) and issubclass(c, lmdb.Error)}
    mapped = {c for c, _, _ in _ERRORS}
    for cls in classes:
        assert any(issubclass(cls, m) for m in mapped), cls
    assert isinstance(error_for(lmdb.DiskError("x")), StoreIOError)
    assert isinstance(error_for(lmdb.ReadersFullError("x")), StoreBusyError)


def _reader(path: str, queue) -> None:
    trees = Trees(Path(path), readonly=True)
    queue.put(len(trees.scan("repo/demo/file/")))
    trees.close()


def test_a_second_process_reads_while_one_writes(store):
    store.trees.merge(store.key("file", "a.py"), lww_record(store, size=1))
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    with store.batch() as b:  # the write transaction is open while the reader runs
        b.merge(store.key("file", "b.py"), lww_record(store, size=2))
        proc = ctx.Process(target=_reader, args=(str(store.trees.path), queue))
        proc.start()
        proc.join(60)
        assert queue.get(timeout=5) == 1  # sees the committed state, not the open batch
