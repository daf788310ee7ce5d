"""trees/integrity: every record of every tree checked, damage named by tree and key."""

from __future__ import annotations

import pytest

from repoctx.crdt import record
from repoctx.trees import LOCAL_TREE, check_directory, check_trees
from repoctx.trees.integrity import ALL_NAMES
from tests.conftest import lww_record


@pytest.fixture
def filled(store):
    with store.batch() as batch:
        for n in range(20):
            batch.merge(store.key("file", f"m{n}.py"), lww_record(store, size=n))
        batch.merge(store.key("mem", "t/1"), lww_record(store, body="keep me"))
    return store


def _put(store, tree: str, key: bytes, value: bytes) -> None:
    with store.trees.env.begin(write=True, db=store.trees.dbs[tree]) as txn:
        txn.put(key, value)


def _damaged(checks):
    return {c.tree: [(d.key, d.reason) for d in c.damage] for c in checks if not c.ok}


def test_a_sound_store_checks_clean_in_every_tree(filled):
    checks = check_trees(filled.trees.env)
    assert [c.tree for c in checks] == list(ALL_NAMES)
    assert all(c.ok for c in checks)
    structural = checks[1]
    assert (structural.entries, structural.sound) == (20, 20)


def test_a_field_that_does_not_decode_is_named_with_tree_and_key(filled):
    key = filled.key("file", "m3.py")
    bad = record.Record({"size": b"\x01\x01\xc1", record.TICK: b"\x02\x01\x00"})
    _put(filled, "repo-context-structural", key.encode(), record.encode(bad))
    assert list(_damaged(check_trees(filled.trees.env))) == ["repo-context-structural"]
    damage = check_trees(filled.trees.env)[1].damage[0]
    assert damage.key == key and "size" in damage.reason


def test_a_key_of_another_tree_and_a_non_utf8_key_are_damage(filled):
    rec = record.encode(lww_record(filled, size=1))
    _put(filled, "repo-context-structural", filled.key("mem", "x").encode(), rec)
    _put(filled, "repo-context-memory", b"repo/demo/mem/\xff", rec)
    got = _damaged(check_trees(filled.trees.env))
    assert "repo-context-memory" in got[("repo-context-structural")][0][1]
    assert got["repo-context-memory"] == [("repo/demo/mem/\\xff", "the key is not UTF-8")]


def test_a_store_local_value_that_is_not_msgpack_is_damage(filled):
    _put(filled, LOCAL_TREE, b"clock", b"\xc1")
    got = _damaged(check_trees(filled.trees.env))
    assert list(got) == [LOCAL_TREE] and got[LOCAL_TREE][0][0] == "clock"


def test_check_directory_reads_in_a_child_and_agrees(filled):
    _put(filled, "repo-context-memory", filled.key("mem", "t/1").encode(), b"\x93")
    path = filled.trees.path
    filled.close()  # py-lmdb refuses a second open of one environment in a process
    got = _damaged(check_directory(path))
    assert list(got) == ["repo-context-memory"]
    assert got["repo-context-memory"][0][0] == filled.key("mem", "t/1")
