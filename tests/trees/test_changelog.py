"""The change log and digests are written in the same transaction as the records."""

from __future__ import annotations

import pytest

from repoctx import open_store
from repoctx.trees import changelog
from tests.conftest import lww_record


@pytest.fixture
def store(store):
    """A store that keeps digests, as after its first sync (first log entry: sequence 2)."""
    changelog.rebuild_digests(store.trees)
    return store


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
    assert log(store) == [(2, {"repo-context-structural": ["repo/demo/file/a.py"],
                               "repo-context-memory": ["repo/demo/mem/m"]})]
    store.merge(store.key("mem", "m"), lww_record(store, body=2))
    assert [seq for seq, _ in log(store, after=2)] == [3]
    with store.snapshot() as snap:
        assert changelog.log_head(snap) == (4, 2)


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
    assert seqs == [5, 6, 7, 8, 9]
    with store.snapshot() as snap:
        assert changelog.log_head(snap) == (10, 5)


def test_digests_survive_a_batch_replayed_after_the_map_filled(tmp_path):
    s = open_store(tmp_path / "repo", repo_id="demo", replica_id="r", map_size=1 << 20)
    changelog.rebuild_digests(s.trees)
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


def test_a_store_that_never_synced_keeps_no_digests_until_its_first_sync(tmp_path):
    s = open_store(tmp_path / "repo", repo_id="demo", replica_id="r")
    s.merge(s.key("mem", "early"), lww_record(s, body=1))
    with s.snapshot() as snap:
        assert not changelog.digests_valid(snap) and changelog.read_log(snap, 0) == []
    assert changelog.rebuild_digests(s.trees) == 1  # the first sync hashes what exists
    s.merge(s.key("mem", "late"), lww_record(s, body=2))
    with s.snapshot() as snap:
        assert changelog.digests_valid(snap)
        head, first = changelog.log_head(snap)
        # the unlogged early write sits before the first retained entry: republished whole
        assert first == 2 and [e for _, e in changelog.read_log(snap, 0)] == [
            {"repo-context-memory": ["repo/demo/mem/late"]}]
    s.close()
