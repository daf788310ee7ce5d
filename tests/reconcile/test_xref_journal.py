"""reconcile/xref_journal: journal edge changes, then net and apply them once per name."""

from repoctx.reconcile import xref_journal
from repoctx.reconcile.nodes import xref_record
from repoctx.reconcile.nodes.xref_record import DEPENDENTS, TESTS
from repoctx.reconcile.pool import worker_pool


def journal(store, *entries):
    keys = []
    for ops in entries:
        with store.batch() as b:
            keys.append(xref_journal.append(b, store, ops))
    return keys


def pending(store):
    with store.snapshot() as snap:
        return list(snap.local_names(xref_journal.journal_prefix(store.repo_id)))


def members(store, name, relation=DEPENDENTS):
    return xref_record.members(store.get(store.key("xref", name)), relation)


def test_append_journals_in_tick_order_and_skips_nothing_to_do(store):
    with store.batch() as b:
        assert xref_journal.append(b, store, []) is None
    keys = journal(store, [(DEPENDENTS, "Foo", "a.X", 1)], [(DEPENDENTS, "Foo", "a.X", -1)])
    assert pending(store) == keys == sorted(keys)
    assert all(k.startswith("xref-journal/demo/") for k in keys)


def test_apply_pending_nets_add_then_remove_and_clears_the_journal(store):
    journal(store,
            [(DEPENDENTS, "Foo", "a.X", 1), (TESTS, "Foo", "t.T", 1)],
            [(DEPENDENTS, "Foo", "a.X", -1), (DEPENDENTS, "Foo", "a.Y", 1)])
    assert xref_journal.apply_pending(store) == 2  # a.Y and t.T; a.X netted away
    assert members(store, "Foo") == {"a.Y"} and members(store, "Foo", TESTS) == {"t.T"}
    assert pending(store) == []
    assert xref_journal.apply_pending(store) == 0  # nothing left


def test_leftovers_replay_idempotently(store):
    ops = [(DEPENDENTS, "Bar", "a.X", 1), (DEPENDENTS, "Baz", "a.X", 1)]
    journal(store, ops)
    assert xref_journal.apply_pending(store) == 2
    writes = store.trees.writes
    journal(store, ops)  # as if a crash left the entry behind after applying it
    assert xref_journal.apply_pending(store) == 0
    assert members(store, "Bar") == members(store, "Baz") == {"a.X"}
    assert store.trees.writes == writes  # no record rewritten (journal is local)
    assert pending(store) == []


def test_this_passes_changes_come_from_memory_and_other_entries_fold_after_them(store):
    older = journal(store, [(DEPENDENTS, "Foo", "a.X", 1)])
    known, changes = xref_journal.pending(store)  # what a pass finds at its start
    assert known == set(older) and changes == {"Foo": {DEPENDENTS: {"a.X": 1}}}
    mine = journal(store, [(DEPENDENTS, "Foo", "ignored", 1)])  # folded in memory instead:
    xref_journal.fold(changes, [(DEPENDENTS, "Foo", "a.X", -1), (DEPENDENTS, "Foo", "a.Y", 1)])
    concurrent = journal(store, [(DEPENDENTS, "Foo", "a.Y", -1), (DEPENDENTS, "Bar", "b", 1)])
    changed = xref_journal.apply_pending(store, changes, known | set(mine), keys_per_batch=1)
    assert changed == 1 and members(store, "Foo") == frozenset()  # later remove wins
    assert members(store, "Bar") == {"b"} and pending(store) == [] and concurrent


def test_a_pool_computes_the_same_records(store, monkeypatch):
    ops = [(DEPENDENTS, f"N{i}", f"s.{j}", 1) for i in range(xref_journal.POOL_NAMES)
           for j in range(3)]
    journal(store, ops, [(DEPENDENTS, "N7", "s.1", -1)])
    with worker_pool(2) as pool:
        mapped = []
        real_map = pool.map
        monkeypatch.setattr(pool, "map", lambda *a, **k: mapped.append(1) or real_map(*a, **k))
        assert xref_journal.apply_pending(store, pool=pool) == len(ops) - 1
    assert mapped  # the deltas were computed in the pool
    assert members(store, "N7") == {"s.0", "s.2"} and members(store, "N900") == {
        "s.0", "s.1", "s.2"}
    assert pending(store) == []


def test_an_entry_is_stored_compressed_and_an_older_plain_entry_still_replays(store):
    ops = [(DEPENDENTS, "Foo", f"pkg.mod.Class{n}.method", 1) for n in range(200)]
    (key,) = journal(store, ops)
    with store.snapshot() as snap:
        stored = snap.get_local(key)
    assert isinstance(stored, bytes) and len(stored) < len(str(ops)) // 5
    assert xref_journal.unpack_ops(stored) == ops
    with store.batch() as b:  # an entry an older repoctx left behind: a plain list
        b.put_local(f"{xref_journal.journal_prefix(store.repo_id)}00000000000000000001",
                    [[DEPENDENTS, "Old", "a.Z", 1]])
    assert xref_journal.apply_pending(store) == 201
    assert members(store, "Old") == {"a.Z"} and len(members(store, "Foo")) == 200
