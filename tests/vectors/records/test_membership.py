"""Membership over the store: memory orphans, adoption, the fallback scan."""

from repoctx.crdt import wall_ms
from repoctx.memory import remember
from repoctx.vectors import backfill, semantic_hits
from repoctx.vectors.records import membership
from repoctx.vectors.records import membership_record as mm
from repoctx.vectors.records import metadata_record as mr
from tests.vectors.conftest import ws
from tests.vectors.hashed_embedder import HashedBagTestEmbedder
from tests.vectors.test_backfill import replicate


def test_an_orphaned_memory_vector_is_retired_after_its_entry_expires(indexed, embedder):
    store = indexed.store
    now = wall_ms()
    remember(store, "ops", "deploy", title="Deploy freeze", body="No deploys on Fridays.",
             ttl_seconds=60, now_ms=now)
    report = backfill(store, embedder, now_ms=now)
    space = report.space
    memory_key = "repo/demo/mem/ops/deploy"
    with store.snapshot(now) as snap:
        assert mm.is_on(snap.get(mm.memkey_key("demo", memory_key)), space)
        assert mm.is_on(snap.get(mm.member_key("demo", "mem:ops/deploy")), space)
        assert membership.orphaned_memkeys(snap, "demo", space, {}) == ["mem:ops/deploy"]
    hits, _ = semantic_hits(ws(store), "deploy freeze fridays", 1, embedder=embedder)
    assert hits[0]["key"] == memory_key and hits[0]["kind"] == "memory"
    later = now + 120_000  # the entry has expired
    expired = backfill(store, embedder, now_ms=later)
    assert expired.retired == 1
    with store.snapshot(later) as snap:
        assert not mm.is_on(snap.get(mm.memkey_key("demo", memory_key)), space)
        assert not mm.is_on(snap.get(mm.member_key("demo", "mem:ops/deploy")), space)
        vid = mr.vector_id(space, "mem:ops/deploy", 0)
        assert mr.meta_of(vid, snap.get(mr.metadata_key("demo", vid))) is None
    hits, _ = semantic_hits(ws(store), "deploy freeze fridays", 5, embedder=embedder)
    assert all(h["kind"] != "memory" for h in hits)


def test_a_source_embedded_elsewhere_at_the_same_version_is_adopted(tmp_path):
    from repoctx import open_store
    from repoctx.reconcile import PassOptions, reconcile_pass
    from tests.vectors.conftest import make_repo
    root = tmp_path / "repo"
    make_repo(root)
    a, b = (open_store(root, repo_id="demo", replica_id=f"r-{n}", store_dir=tmp_path / n)
            for n in ("a", "b"))
    for s in (a, b):
        reconcile_pass(s, root, PassOptions(workers=1))
        backfill(s, HashedBagTestEmbedder())
    remember(a, "design", "cache", title="Cache policy", body="Entries live one hour.")
    backfill(a, HashedBagTestEmbedder())
    with a.snapshot() as snap:  # the memory entry and its vectors reach b
        rows = list(snap.scan("repo/demo/mem/"))
    with b.batch() as batch:
        for key, rec in rows:
            batch.merge(key, rec)
    replicate(a, b)
    embedder = HashedBagTestEmbedder()
    report = backfill(b, embedder)
    assert report.adopted == 1 and report.embedded == 0 and embedder.texts == 0
    hits, _ = semantic_hits(ws(b), "cache policy hour", 1, embedder=embedder)
    assert hits[0]["key"] == "repo/demo/mem/design/cache"
    a.close()
    b.close()


def test_the_membership_scan_sees_flags_versions_and_counts(indexed, embedder):
    store = indexed.store
    report = backfill(store, embedder)
    with store.snapshot() as snap:
        covered = membership.scan_covered(snap, "demo", report.space)
    assert covered["file:README.md"][1] == 1 and len(covered["file:README.md"][0]) == 64
    assert covered["file:empty.txt"] == (None, 0)
    assert len(covered) == report.embedded + report.nil
