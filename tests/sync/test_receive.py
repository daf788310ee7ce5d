"""Checking and merging incoming records; re-deriving reverse edges."""

from __future__ import annotations

from repoctx.crdt import record, wall_ms
from repoctx.crdt.record import Record
from repoctx.reconcile.nodes import symbol_record, xref_record
from repoctx.reconcile.nodes.symbol_record import Declaration
from repoctx.sync import LocalTransport, Responder, canonical, receive, sync
from repoctx.trees import codec, tree_of
from tests.conftest import lww_record

from .helpers import new_store, raw_trees, session_write

MEM = "repo-context-memory"


def item(store, key, rec):
    return (tree_of(key).name, key, codec.encode(tree_of(key), rec))


def test_a_corrupt_record_is_rejected_by_name_and_nothing_else_is_lost(tmp_path):
    s = new_store(tmp_path / "a", "ra")
    good = [item(s, s.key("mem", f"m{i}"), lww_record(s, body=i)) for i in range(5)]
    bad = [(MEM, s.key("mem", "bad"), b"\xc1garbage"),
           (MEM, s.key("file", "wrong-tree.py"), good[0][2]),
           ("repo-context-vector-index", s.key("vidx", "x"), good[0][2]),
           (MEM, s.key("mem", "bad-field"), record.encode(Record({"body": b"\x01"})))]
    got = receive(s, good[:2] + bad + good[2:], chunk=3)
    assert got.merged == 5
    assert [(e.tree, e.key) for e in got.rejected] == [(t, k) for t, k, _ in bad]
    assert "repo/demo/mem/bad" in str(got.rejected[0]) and MEM in str(got.rejected[0])
    assert len(s.trees.scan("repo/demo/mem/")) == 5


def test_receiving_twice_changes_nothing(tmp_path):
    s = new_store(tmp_path / "a", "ra")
    items = [item(s, s.key("mem", f"m{i}"), lww_record(s, body=i)) for i in range(3)]
    assert receive(s, items).merged == 3
    before = raw_trees(s)
    again = receive(s, items)
    assert again.merged == 0 and again.unchanged == 3 and raw_trees(s) == before


def test_records_are_stored_canonically_whatever_order_the_peer_packed(tmp_path):
    s = new_store(tmp_path / "a", "ra")
    rec = lww_record(s, zeta=1, alpha=2)
    shuffled = Record(dict(reversed(list(rec.fields.items()))))
    assert canonical(shuffled) == rec and list(canonical(shuffled).fields) == sorted(rec.fields)
    key = s.key("mem", "m")
    receive(s, [(MEM, key, record.encode(shuffled))])
    assert raw_trees(s)[MEM] == [(key.encode(), record.encode(rec))]


def test_a_record_past_its_grace_is_not_resurrected(tmp_path):
    s, src = new_store(tmp_path / "a", "ra"), new_store(tmp_path / "b", "rb")
    key = src.key("session", "old")
    session_write(src, key, "a.py", wall_ms() - 3 * 3_600_000)  # expired, grace is 1 h
    got = receive(s, [(t, k.decode(), v) for t, rows in raw_trees(src).items()
                      for k, v in rows])
    assert got.merged == 0 and raw_trees(s)["repo-context-session"] == []


def test_received_symbols_re_derive_their_reverse_edges(tmp_path):
    a, b = new_store(tmp_path / "a", "ra"), new_store(tmp_path / "b", "rb")
    fq = "app.Model"
    decl = Declaration("class", "class Model(Base)", "", 1, 3, ("Base", "helper"), False)
    a.merge(a.key("symbol", fq), symbol_record.declare_delta(None, "app.py", decl, a.tick(),
                                                             a.replica_id))
    report = sync(b, LocalTransport(Responder(a), "a", closing=False))
    assert report.received == 1
    for name in ("Base", "helper"):
        assert xref_record.members(b.get(b.key("xref", name)), xref_record.DEPENDENTS) == {fq}
    newer = Declaration("class", "class Model(Other)", "", 1, 3, ("Other",), False)
    a.merge(a.key("symbol", fq), symbol_record.declare_delta(
        a.get(a.key("symbol", fq)), "app.py", newer, a.tick(), a.replica_id))
    sync(b, LocalTransport(Responder(a), "a", closing=False))
    assert b.get(b.key("xref", "Base")) is None  # pruned: a tombstone
    assert xref_record.members(b.get(b.key("xref", "Other")), xref_record.DEPENDENTS) == {fq}
    assert b.clock.last >= a.clock.last - 1  # the clock observed the incoming ticks


def test_membership_arriving_from_a_peer_unbuilds_the_coverage_digest(tmp_path):
    from repoctx.reconcile import reconcile_pass
    from repoctx.vectors import backfill, space_of
    from repoctx.vectors.records import coverage
    from tests.reconcile.helpers import write
    from tests.vectors.hashed_embedder import HashedBagTestEmbedder

    from .helpers import exchange, new_store

    embedder = HashedBagTestEmbedder()
    root = tmp_path / "repo"
    write(root, {"a.py": "def alpha():\n    return 1\n", "b.py": "class Beta:\n    pass\n"})
    here, there = new_store(tmp_path / "here", "r-here"), new_store(tmp_path / "there", "r-there")
    try:
        for store in (here, there):
            reconcile_pass(store, root)
        backfill(here, embedder)
        space = space_of(embedder)
        with here.snapshot() as snap:
            assert coverage.read(snap, "demo", space) is not None  # built by the back-fill
        write(root, {"c.py": "def gamma():\n    return 3\n"})
        reconcile_pass(there, root)
        backfill(there, embedder)  # there embeds c.py: new membership to ship
        exchange(here, there)
        with here.snapshot() as snap:
            assert coverage.read(snap, "demo", space) is None  # unbuilt: rebuilt on next scan
        assert backfill(here, embedder).error is None
        with here.snapshot() as snap:
            assert coverage.read(snap, "demo", space) is not None
    finally:
        here.close()
        there.close()

