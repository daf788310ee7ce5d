"""reconcile/file_node: node deltas round-trip, retiring makes a tombstone, stat_of."""

from repoctx.crdt import record
from repoctx.reconcile import file_node as fn

NODE = fn.FileNode("pkg/a.py", 10, 123, "d" * 64, "python", 5, ("pkg.a.b", "pkg.a.a"),
                   (fn.XREF, fn.CONTENT))


def test_node_delta_round_trips_with_sorted_symbols_and_markers():
    rec = fn.node_delta(None, NODE, 1, "r1")
    got = fn.file_node("pkg/a.py", rec)
    assert got == fn.FileNode("pkg/a.py", 10, 123, "d" * 64, "python", 5,
                              ("pkg.a.a", "pkg.a.b"), (fn.CONTENT, fn.XREF))
    assert got.has(fn.CONTENT) and not got.has(fn.SYMBOLS)
    assert fn.node_delta(rec, NODE, 2, "r1") is None


def test_a_changed_node_writes_only_what_changed():
    rec = fn.node_delta(None, NODE, 1, "r1")
    delta = fn.node_delta(rec, fn.FileNode("pkg/a.py", 10, 999, "d" * 64, "python", 5,
                                           NODE.symbols, NODE.markers), 2, "r1")
    assert set(delta.fields) == {"mtime_ns", "$tick"}


def test_retire_delta_makes_a_tombstone():
    rec = fn.node_delta(None, NODE, 1, "r1")
    retired = record.merge(rec, fn.retire_delta(rec, 2, "r1"))
    assert record.is_tombstone(retired)
    assert fn.retire_delta(retired, 3, "r1") is None


def test_stat_of_reads_size_mtime_and_markers():
    rec = fn.node_delta(None, NODE, 1, "r1")
    assert fn.stat_of(rec) == (10, 123, (fn.CONTENT, fn.XREF))
    bare = fn.node_delta(None, fn.FileNode("b.txt", 1, 2, "e"), 1, "r1")
    assert fn.stat_of(bare) == (1, 2, ())


def test_load_all_returns_live_nodes_by_path(store):
    other = fn.FileNode("b.md", 1, 2, "e" * 64)
    with store.batch() as b:
        for node in (NODE, other):
            b.merge(store.key("file", node.path), fn.node_delta(None, node, store.tick(), "r"))
    gone = store.key("file", "b.md")
    store.merge(gone, fn.retire_delta(store.get(gone), store.tick(), "r"))
    assert list(fn.load_all(store)) == ["pkg/a.py"]
    assert set(fn.load_records(store)) == {"pkg/a.py"}


def _damage_tokens(store, path: str) -> str:
    """Overwrite the stored ``tokens`` field of ``path``'s node with bytes that do not
    decode (the record's map and its other fields stay sound); returns the node's key."""
    from repoctx.trees import codec, tree_of

    key = store.key("file", path)
    with store.trees.env.begin(write=True, db=store.trees.dbs[tree_of(key).name]) as txn:
        rec = record.decode(codec.plain(txn.get(key.encode())))  # stored maybe compressed
        fields = dict(rec.fields)
        fields["tokens"] = fields["tokens"][:2] + b"\xc1" * 12  # header, then no msgpack
        assert txn.put(key.encode(), record.encode(record.Record(fields)))
    return key


def test_live_nodes_check_a_node_when_it_is_looked_up_not_when_scanned(tmp_path):
    import pytest

    from repoctx import open_store
    from repoctx.errors import CorruptRecordError
    from repoctx.reconcile import PassOptions, reconcile_pass

    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("def a():\n    return 1\n")
    (root / "b.py").write_text("def b():\n    return 2\n")
    with open_store(root, repo_id="demo") as store:
        reconcile_pass(store, root, PassOptions(workers=1))
        key = _damage_tokens(store, "b.py")
        nodes = fn.load_records(store)  # the scan does not check b.py's fields
        assert set(nodes) == {"a.py", "b.py"} and fn.file_node("a.py", nodes["a.py"]).size
        assert nodes.symbols("b.py") == ("b.b",)  # a sound field reads without the check
        with pytest.raises(CorruptRecordError, match="b.py"):
            nodes["b.py"]
        assert key in str(pytest.raises(CorruptRecordError, nodes.get, "b.py").value)
        untouched = reconcile_pass(store, root, PassOptions(workers=1))
        assert untouched.unchanged == 2 and not untouched.warnings
        (root / "b.py").write_text("def b():\n    return 3\n")
        report = reconcile_pass(store, root, PassOptions(workers=1))
        assert any("'b.py': its node does not decode" in w for w in report.warnings)
        assert fn.load_all(store)["b.py"].tokens  # rewritten whole: it decodes again
