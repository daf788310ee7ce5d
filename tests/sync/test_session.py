"""Anti-entropy exchanges: convergence under random interleavings, efficiency, faults."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from repoctx import open_store
from repoctx.crdt import add_wins_set, record, wall_ms
from repoctx.errors import PeerUnavailableError
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.reconcile.nodes import symbol_record, xref_record
from repoctx.reconcile.xref import edges
from repoctx.sync import LocalTransport, Responder, sync
from repoctx.sync.digests import roots
from repoctx.trees import changelog, tree_of
from repoctx.trees import codec as tree_codec
from tests.conftest import lww_record

from .helpers import (
    canonical_trees,
    exchange,
    forget,
    new_store,
    raw_trees,
    recode,
    remember,
    session_write,
    settle,
    untag,
)

TAGS = ["bug", "idea", "todo"]
BODIES = ["alpha", "beta", "gamma"]
HOUR = 3_600_000


def variant_files(v: int) -> dict[str, str]:
    """A small Python project; variants differ in what the symbols reference."""
    base = f"Base{v % 3}"
    files = {
        "app.py": f"class Model({base}):\n    def save(self):\n"
                  f"        return helper{v % 2}(self)\n",
        "util.py": f"def helper{v % 2}(x):\n    raise Error{v % 4}(x)\n",
        "tests/test_app.py": "from app import Model\n\nclass TestModel:\n"
                             "    def test_save(self):\n        Model().save()\n",
    }
    if v % 2:
        files[f"extra{v}.py"] = f"class Extra{v}(Model):\n    pass\n"
    return files


def index(store, root: Path, v: int) -> None:
    for old in root.rglob("*.py"):
        old.unlink()
    for rel, body in variant_files(v).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    reconcile_pass(store, root, PassOptions(workers=1))


class Model:
    """What the memory-like and session-like records must end as."""

    def __init__(self) -> None:
        self.bodies: dict[str, list[tuple[int, str, str | None]]] = {}
        self.adds: list[tuple[str, str, tuple]] = []
        self.removed: set = set()  # (key, dot): dots are per object
        self.expiry: dict[str, dict[str, int]] = {}

    def tags(self, key: str) -> set[str]:
        return {t for k, t, dot in self.adds if k == key and (k, dot) not in self.removed}


OPS = st.one_of(
    st.tuples(st.just("index"), st.integers(0, 4), st.integers(0, 5)),
    st.tuples(st.just("remember"), st.integers(0, 4), st.integers(0, 2),
              st.sampled_from(BODIES), st.sets(st.sampled_from(TAGS), max_size=2)),
    st.tuples(st.just("untag"), st.integers(0, 4), st.integers(0, 2), st.sampled_from(TAGS)),
    st.tuples(st.just("forget"), st.integers(0, 4), st.integers(0, 2)),
    st.tuples(st.just("session"), st.integers(0, 4), st.integers(0, 1),
              st.sampled_from(["a.py", "b.py"]), st.booleans()),
    st.tuples(st.just("sync"), st.integers(0, 4), st.integers(0, 4),
              st.none() | st.integers(0, 6)),
    st.tuples(st.just("recode"), st.integers(0, 4), st.integers(0, 2)),
)


def apply(op: tuple, stores: list, roots: list[Path], model: Model) -> None:
    kind, s = op[0], op[1] % len(stores)
    store = stores[s]
    if kind == "index":
        index(store, roots[s], op[2])
    elif kind == "remember":
        key = store.key("mem", f"note-{op[2]}")
        info = remember(store, key, op[3], op[4])
        model.bodies.setdefault(key, []).append((info["tick"], info["replica"], op[3]))
        model.adds += [(key, t, dot) for t, dot in info["dots"].items()]
        model.removed |= {(key, d) for d in info["removed"]}
    elif kind == "untag":
        key = store.key("mem", f"note-{op[2]}")
        model.removed |= {(key, d) for d in untag(store, key, {op[3]})}
    elif kind == "forget":
        key = store.key("mem", f"note-{op[2]}")
        tick, removed = forget(store, key)
        model.bodies.setdefault(key, []).append((tick, store.replica_id, None))
        model.removed |= {(key, d) for d in removed}
    elif kind == "session":
        key = store.key("session", f"s-{op[2]}")
        expires = wall_ms() + (-60_000 if op[4] else HOUR)  # expired, but within grace
        session_write(store, key, op[3], expires)
        model.expiry.setdefault(key, {})[op[3]] = max(
            expires, model.expiry.get(key, {}).get(op[3], 0))
    elif kind == "recode":  # as another version (or format 1) would have stored them
        recode(store, op[2])
    else:
        other = op[2] % len(stores)
        if other != s:
            exchange(store, stores[other], max_records=op[3])


def merged_everything(stores: list, root: Path):
    """A fresh store into which every record of every store was merged."""
    single = open_store(root, repo_id="demo", replica_id="single")
    for store in stores:
        for rows in raw_trees(store).values():
            with single.batch() as b:
                for k, raw in rows:
                    key = k.decode()
                    rec = tree_codec.decode(tree_of(key), key, raw)
                    b.merge(record.full_key(rec) or key, rec)
    return single


def check_model(store, model: Model) -> None:
    now = wall_ms()
    with store.snapshot(now_ms=now) as snap:
        for key, writes in model.bodies.items():
            rec = snap.get(key)
            expected_body = max(writes)[2]
            tags = model.tags(key)
            if rec is None:  # hidden: a tombstone
                assert expected_body is None and not tags, key
                continue
            value = record.value(rec)
            assert value.get("body") == expected_body, key
            assert value.get("tags", frozenset()) == tags, (key, "remove beat an unobserved add")
        for key, elements in model.expiry.items():
            visible = snap.get(key)
            expires = max(elements.values())
            assert (visible is not None) == (expires > now), key
        for key, rec in snap.scan_tree(tree_of(store.key("symbol", "x")), "repo/demo/symbol/"):
            fq = key.rsplit("/", 1)[-1]
            for relation, name in edges(fq, symbol_record.declarations(rec)):
                xref = snap.get(store.key("xref", name))
                assert xref is not None and fq in xref_record.members(xref, relation), (fq, name)


def snapshot_roots(store) -> dict[str, bytes]:
    with store.snapshot() as snap:
        return roots(snap)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(3, 5), ops=st.lists(OPS, min_size=4, max_size=22))
def test_replicas_converge_byte_for_byte_under_random_interleavings(n, ops):
    with tempfile.TemporaryDirectory() as tmp:
        roots = [Path(tmp) / f"r{i}" for i in range(n)]
        stores = [new_store(r, f"rep{i}") for i, r in enumerate(roots)]
        model = Model()
        try:
            for op in ops:
                apply(op, stores, roots, model)
            settle(stores)
            first = canonical_trees(stores[0])
            for other in stores[1:]:
                assert canonical_trees(other) == first
            for store in stores:  # the digests kept by every write describe the records
                kept = snapshot_roots(store)
                changelog.rebuild_digests(store.trees)
                assert snapshot_roots(store) == kept
            single = merged_everything(stores, Path(tmp) / "single")
            assert canonical_trees(single) == first
            single.close()
            check_model(stores[0], model)
        finally:
            for s in stores:
                s.close()


def test_a_remove_never_beats_an_unobserved_concurrent_add(tmp_path):
    a, b = new_store(tmp_path / "a", "ra"), new_store(tmp_path / "b", "rb")
    key = a.key("mem", "note")
    remember(a, key, "x", {"bug"})
    exchange(a, b)
    untag(a, key, {"bug"})          # a removes the add it observed...
    remember(b, key, "x", {"bug"})  # ...while b re-adds it concurrently
    settle([a, b])
    for s in (a, b):
        assert add_wins_set.value(record.field_state(s.get(key), "tags", add_wins_set)) == {"bug"}
    untag(a, key, {"bug"})  # now a has seen both adds: the remove wins
    settle([a, b])
    assert b.get(key) is not None and "bug" not in record.value(b.get(key))["tags"]


def test_expired_entries_expire_everywhere(tmp_path):
    a, b, c = (new_store(tmp_path / n, f"r{n}") for n in "abc")
    gone, live = a.key("session", "old"), a.key("session", "new")
    session_write(a, gone, "a.py", wall_ms() - 1_000)
    session_write(a, live, "a.py", wall_ms() + HOUR)
    session_write(c, live, "b.py", wall_ms() + 2 * HOUR)
    settle([a, b, c])
    for s in (a, b, c):
        assert s.get(gone) is None
        assert record.value(s.get(live))["receipts"] == {"a.py", "b.py"}
    assert raw_trees(a) == raw_trees(b) == raw_trees(c)


def test_after_100_changes_in_a_big_store_a_sync_ships_only_those(tmp_path):
    a, b = new_store(tmp_path / "a", "ra"), new_store(tmp_path / "b", "rb")
    with a.batch() as batch:
        for i in range(5000):
            batch.merge(a.key("file", f"f{i}.py"), lww_record(a, size=i))
    first = exchange(a, b)
    assert first.sent == 5000 and first.received == 0
    with b.batch() as batch:
        for i in range(0, 5000, 50):
            batch.merge(b.key("file", f"f{i}.py"), lww_record(b, size=-i))
    second = exchange(a, b)
    assert second.received == 100 and second.sent == 0
    assert exchange(a, b).sent + exchange(b, a).received == 0
    assert raw_trees(a) == raw_trees(b)


def digest_blobs(store) -> dict[str, bytes]:
    return Responder(store).hello({})["roots"]


class Flaky(LocalTransport):
    """A peer that disappears after a number of requests."""

    def __init__(self, responder, calls: int) -> None:
        super().__init__(responder, "flaky", closing=False)
        self.left = calls

    def call(self, op, body):
        if self.left == 0:
            raise PeerUnavailableError("peer flaky went away")
        self.left -= 1
        return super().call(op, body)


@pytest.mark.parametrize("calls", [1, 4, 6, 7, 9])
def test_a_peer_that_disappears_midway_leaves_both_valid_and_the_next_sync_finishes(
        tmp_path, calls):
    a, b = new_store(tmp_path / "a", "ra"), new_store(tmp_path / "b", "rb")
    with a.batch() as batch:
        for i in range(1200):
            batch.merge(a.key("mem", f"m{i}"), lww_record(a, body=i))
    with b.batch() as batch:
        for i in range(800):
            batch.merge(b.key("file", f"f{i}"), lww_record(b, size=i))
    with pytest.raises(PeerUnavailableError):
        sync(a, Flaky(Responder(b), calls), chunk=300)
    for s in (a, b):  # both stores still read, and their digests still match their data
        assert s.trees.scan("repo/demo/mem/") is not None
        before = digest_blobs(s)
        changelog.rebuild_digests(s.trees)
        assert digest_blobs(s) == before
    report = exchange(a, b)
    assert report.complete
    assert raw_trees(a) == raw_trees(b)
    assert len(raw_trees(a)["repo-context-memory"]) == 1200


def test_a_partial_sync_is_finished_by_the_next(tmp_path):
    a, b = new_store(tmp_path / "a", "ra"), new_store(tmp_path / "b", "rb")
    with a.batch() as batch:
        for i in range(50):
            batch.merge(a.key("mem", f"m{i}"), lww_record(a, body=i))
    partial = exchange(a, b, max_records=20)
    assert partial.sent == 20 and not partial.complete
    rest = exchange(a, b)
    assert rest.sent == 30 and rest.complete
