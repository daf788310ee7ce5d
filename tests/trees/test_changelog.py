"""The change log and digests are written in the same transaction as the records."""

from __future__ import annotations

import pytest

from repoctx import open_store
from repoctx.trees import changelog
from tests.conftest import lww_record


def log(store, after=0):
    with store.snapshot() as snap:
        return changelog.read_log(snap, after)


def test_every_write_transaction_appends_its_keys_once(store):
    last = lww_record(store, size=2)
    with store.batch() as b:
        b.merge(store.key("file", "a.py"), lww_record(store, size=1))
        b.merge(store.key("file", "a.py"), last)
        b.merge(store.key("mem", "m"), lww_record(store, body=1))
        b.merge(store.key("vidx", "x"), lww_record(store, v=1))  # derived, local: not logged
    store.merge(store.key("file", "a.py"), last)  # unchanged: no entry
    assert log(store) == [(1, {"repo-context-structural": ["repo/demo/file/a.py"],
                               "repo-context-memory": ["repo/demo/mem/m"]})]
    store.merge(store.key("mem", "m"), lww_record(store, body=2))
    assert [seq for seq, _ in log(store, after=1)] == [2]
    with store.snapshot() as snap:
        assert changelog.log_head(snap) == (3, 1)


def test_a_failed_batch_logs_nothing(store):
    with pytest.raises(RuntimeError), store.batch() as b:
        b.merge(store.key("mem", "m"), lww_record(store, body=1))
        raise RuntimeError("boom")
    assert log(store) == []


def test_the_log_is_trimmed_oldest_first(store, monkeypatch):
    monkeypatch.setattr(changelog, "LOG_CAP", 5)
    for i in range(8):
        store.merge(store.key("mem", f"m{i}"), lww_record(store, body=i))
    seqs = [seq for seq, _ in log(store)]
    assert seqs == [4, 5, 6, 7, 8]
    with store.snapshot() as snap:
        assert changelog.log_head(snap) == (9, 4)


def test_digests_survive_a_batch_replayed_after_the_map_filled(tmp_path):
    s = open_store(tmp_path / "repo", repo_id="demo", replica_id="r", map_size=1 << 20)
    with s.batch() as b:
        for i in range(3000):
            b.merge(s.key("mem", f"m{i}"), lww_record(s, body="x" * 200))
    with s.snapshot() as snap:
        before = [snap.get_local(changelog.segment_name("repo-context-memory", g))
                  for g in range(changelog.SEGMENTS)]
    changelog.rebuild_digests(s.trees)
    with s.snapshot() as snap:
        after = [snap.get_local(changelog.segment_name("repo-context-memory", g))
                 for g in range(changelog.SEGMENTS)]
    assert before == after
    s.close()


def test_a_new_store_marks_its_digests_valid(store):
    with store.snapshot() as snap:
        assert changelog.digests_valid(snap)
