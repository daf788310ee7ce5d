"""trees/compaction: tombstones and expired records are reaped after their tree's grace."""

from dataclasses import replace

from repoctx.crdt import max_register, or_flag, record
from repoctx.trees import compact, lmdb_key
from repoctx.trees import compaction as compaction_module
from repoctx.trees.spec import BY_FAMILY, BY_NAME, DAY_MS, REAPABLE_WRITES
from tests.conftest import lww_record


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

def test_live_records_are_never_reaped_and_names_limit_the_trees(store):
    store.trees.merge(store.key("file", "a.py"), lww_record(store, size=1))
    flag_key, _ = tombstone_and_expired(store)
    later = (store.clock.last >> 16) + 30 * DAY_MS
    assert store.trees.scan("repo/demo/file/") != []
    assert compact(store.trees, now_ms=later, names=["repo-context-structural"]) == {
        "repo-context-structural": 0}
    with store.trees.env.begin(db=store.trees.dbs["repo-context-memory"]) as txn:
        assert txn.get(lmdb_key(flag_key)) is not None  # memory tree not asked for
    reaped = compact(store.trees, now_ms=later)
    assert reaped["repo-context-memory"] == 2 and reaped["repo-context-structural"] == 0
    assert len(store.trees.scan("repo/demo/file/")) == 1


def test_reaping_looks_past_an_empty_first_field_and_skips_corrupt_bytes(store):
    keys = {
        "late": store.key("file", "late.py"),  # first field empty, a later one live
        "dead": store.key("file", "dead.py"),
        "symbol-dead": store.key("symbol", "a.Dead"),  # enveloped
        "symbol-live": store.key("symbol", "a.Live"),
    }
    store.trees.merge(keys["late"], lww_record(store, a=None, z=1))
    store.trees.merge(keys["dead"], lww_record(store, a=None, z=None))
    store.trees.merge(keys["symbol-dead"], lww_record(store, kind=None))
    store.trees.merge(keys["symbol-live"], lww_record(store, kind="class"))
    structural, symbol = "repo-context-structural", "repo-context-symbol"
    with store.trees.env.begin(write=True, db=store.trees.dbs[structural]) as txn:
        txn.put(lmdb_key(store.key("file", "garbage.py")), b"\xc1\xc1")
    later = (store.clock.last >> 16) + 30 * DAY_MS
    assert compact(store.trees, now_ms=later, names=[structural, symbol]) == {
        structural: 1, symbol: 1}
    for name, tree in ((name, symbol if "symbol" in name else structural) for name in keys):
        with store.trees.env.begin(db=store.trees.dbs[tree]) as txn:
            assert (txn.get(lmdb_key(keys[name])) is None) == name.endswith("dead"), name


def test_only_tombstones_and_expiring_writes_bring_compaction_on(store, monkeypatch):
    spec = replace(BY_NAME["repo-context-memory"], compaction_trigger=3)
    monkeypatch.setitem(BY_NAME, spec.name, spec)
    monkeypatch.setitem(BY_FAMILY, "mem", spec)
    runs = []
    # (``Trees`` imports ``compact`` from its module when a commit brings compaction on)
    monkeypatch.setattr(compaction_module, "compact", lambda trees, names: runs.append(names))
    for i in range(10):  # live records leave nothing to reap: a tree that grows never rescans
        store.trees.merge(store.key("mem", f"live/{i}"), lww_record(store, body=str(i)))
    assert runs == []
    tombstone_and_expired(store)  # one tombstone, one expiring record
    assert runs == []
    store.trees.merge(store.key("mem", "gone"), lww_record(store, body=None))
    assert runs == [["repo-context-memory"]]
    assert store.trees.get_local(REAPABLE_WRITES) == {"repo-context-memory": 0}
