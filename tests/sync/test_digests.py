"""Digests kept in the writing transaction equal digests computed from scratch."""

from __future__ import annotations

from repoctx.crdt import wall_ms
from repoctx.sync import ensure_digests
from repoctx.sync.digests import bucket_digests, differing, entries, roots, segment_hashes
from repoctx.trees import LOCAL_TREE, changelog
from tests.conftest import lww_record

from .helpers import new_store, session_write


def snapshot_roots(store):
    with store.snapshot() as snap:
        return roots(snap)


def test_incremental_digests_equal_a_rebuild_after_writes_updates_and_compaction(tmp_path):
    s = new_store(tmp_path / "a", "ra")
    empty = snapshot_roots(s)
    with s.batch() as b:
        for i in range(300):
            b.merge(s.key("file", f"f{i}.py"), lww_record(s, size=i))
            b.merge(s.key("file", f"f{i}.py"), lww_record(s, size=i + 1))  # twice in a batch
    session_write(s, s.key("session", "old"), "a.py", wall_ms() - 10 * 3_600_000)
    s.merge(s.key("vidx", "local-only"), lww_record(s, v=1))  # not replicated: no digest
    kept = snapshot_roots(s)
    assert kept != empty
    changelog.rebuild_digests(s.trees)
    assert snapshot_roots(s) == kept
    assert s.gc()["repo-context-session"] == 1  # reaped: the digest forgets it
    reaped = snapshot_roots(s)
    changelog.rebuild_digests(s.trees)
    assert snapshot_roots(s) == reaped
    assert reaped["repo-context-session"] == empty["repo-context-session"]


def test_levels_narrow_down_to_the_changed_keys(tmp_path):
    a, b = new_store(tmp_path / "a", "ra"), new_store(tmp_path / "b", "rb")
    tree = "repo-context-structural"
    with a.snapshot() as sa, b.snapshot() as sb:
        assert segment_hashes(sa, tree) == segment_hashes(sb, tree)
    a.merge(a.key("file", "x.py"), lww_record(a, size=1))
    with a.snapshot() as sa, b.snapshot() as sb:
        segs = differing(dict(enumerate(segment_hashes(sa, tree))),
                         dict(enumerate(segment_hashes(sb, tree))))
        assert len(segs) == 1
        buckets = differing(bucket_digests(sa, tree, segs), bucket_digests(sb, tree, segs))
        assert buckets == [changelog.bucket_of(b"repo/demo/file/x.py")]
        assert list(entries(sa, tree, buckets)) == ["repo/demo/file/x.py"]
        assert entries(sb, tree, buckets) == {}


def test_a_store_written_before_digests_existed_gets_them_rebuilt(tmp_path):
    s = new_store(tmp_path / "a", "ra")
    s.merge(s.key("mem", "m"), lww_record(s, body=1))
    kept = snapshot_roots(s)
    with s.trees.env.begin(write=True) as txn:  # as an older repoctx left it
        for k, _ in list(txn.cursor(db=s.trees.dbs[LOCAL_TREE])):
            if k.startswith(b"digest"):
                txn.delete(k, db=s.trees.dbs[LOCAL_TREE])
    with s.snapshot() as snap:
        assert not changelog.digests_valid(snap)
    ensure_digests(s)
    assert snapshot_roots(s) == kept
