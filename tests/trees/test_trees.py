"""trees/trees: reads, scans, snapshots and read-only handles over the named trees."""

import multiprocessing
from pathlib import Path

import pytest

from repoctx.crdt import record
from repoctx.errors import CorruptRecordError, WrongTreeError
from repoctx.trees import TREES, Trees, decode_stored
from tests.conftest import lww_record


def test_read_merge_write_merges_fields(store):
    key = store.key("file", "a.py")
    store.trees.merge(key, lww_record(store, size=1, lang="python"))
    store.trees.merge(key, lww_record(store, size=2))
    assert record.value(store.get(key)) | {"$tick": 0} == {"size": 2, "lang": "python", "$tick": 0}


def test_wrong_tree_and_scans_in_key_order(store):
    with store.batch() as b:
        for name in ("b.py", "a.py", "c/d.py"):
            b.merge(store.key("file", name), lww_record(store, size=len(name)))
        b.merge(store.key("pkg", "c"), lww_record(store, kind="dir"))
    keys = [k for k, _ in store.trees.scan("repo/demo/file/")]
    assert keys == ["repo/demo/file/a.py", "repo/demo/file/b.py", "repo/demo/file/c/d.py"]
    with pytest.raises(WrongTreeError), store.trees.snapshot() as snap:
        list(snap.scan_tree(TREES[1], "repo/demo/file/"))


def test_a_600_byte_key_works(store):
    key = store.key("symbol", "pkg." + "x" * 600)
    store.trees.merge(key, lww_record(store, kind="class"))
    assert record.value(store.get(key))["kind"] == "class"
    assert [k for k, _ in store.trees.scan("repo/demo/symbol/")] == [key]


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



def test_encoded_reads_hand_back_stored_bytes_hidden_records_and_full_keys(store):
    long_key = store.key("symbol", "pkg." + "x" * 600)  # stored under a hashed LMDB key
    gone = store.key("symbol", "pkg.gone")
    store.trees.merge(long_key, lww_record(store, kind="class"))
    store.trees.merge(gone, lww_record(store, kind=None))  # a tombstone: scan hides it
    with store.trees.snapshot() as snap:
        encoded = dict(snap.scan_encoded(TREES[1], "repo/demo/symbol/"))
        assert sorted(encoded) == sorted([long_key, gone])
        assert all(type(raw) is bytes for raw in encoded.values())
        assert snap.get_encoded(long_key) == encoded[long_key]
        assert snap.get_encoded(store.key("symbol", "pkg.none")) is None
    assert decode_stored(long_key, encoded[long_key]) == store.get(long_key)
    assert record.is_tombstone(decode_stored(gone, encoded[gone]))
    with pytest.raises(CorruptRecordError, match="pkg.gone"):
        decode_stored(gone, b"\xc1garbage")

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


def test_generation_counts_record_writing_batches_per_tree(store):
    structural, symbol = TREES[0].name, TREES[1].name
    assert store.trees.generation(structural) == 0
    delta = lww_record(store, size=1)
    with store.batch() as b:
        b.merge(store.key("file", "a.py"), delta)
        b.merge(store.key("file", "b.py"), delta)
    store.trees.merge(store.key("file", "a.py"), delta)  # changes nothing
    with store.batch() as b:
        b.put_local("anything", 1)
    assert store.trees.generation(structural) == 1
    assert store.trees.generation(symbol) == 0
    with store.snapshot() as before:
        store.trees.merge(store.key("file", "a.py"), lww_record(store, size=2))
        assert before.generation(structural) == 1  # as its snapshot saw it
    assert store.trees.generation(structural) == 2


def test_heads_are_the_roots_under_a_prefix_whatever_sorts_between_them(store):
    # "demo-x" sorts between "repo/demo" and "repo/demo/...": the jump past demo's
    # subtree must not skip it, nor a repository whose root is missing ("nohead").
    with store.batch() as b:
        for repo in ("demo", "demo-x", "demo0"):
            b.merge(f"repo/{repo}", lww_record(store, name=repo))
            for name in ("a.py", "b/c.py"):
                b.merge(f"repo/{repo}/file/{name}", lww_record(store, size=1))
        b.merge("repo/nohead/file/a.py", lww_record(store, size=1))
    with store.trees.snapshot() as snap:
        assert list(snap.heads(TREES[0], "repo/")) == ["demo", "demo-x", "demo0"]
        assert list(snap.heads(TREES[0], "repo/demo/file/")) == ["a.py"]
    assert store.repo_ids() == ["demo", "demo-x", "demo0"]
