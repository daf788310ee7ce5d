"""reconcile/nodes/file_node: node deltas round-trip, retiring makes a tombstone, stat_of."""

from repoctx import open_store
from repoctx.crdt import record
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.reconcile.nodes import file_node as fn
from tests.reconcile.helpers import write

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


def _nodes(live) -> dict:
    return {path: fn.file_node(path, live[path]) for path in live}


def test_a_pass_lends_its_scan_and_the_export_reads_only_what_it_wrote(tmp_path):
    root = tmp_path / "repo"
    write(root, {f"m{i}.py": f"X = {i}\n" for i in range(6)} | {"a.md": "# A\n"})
    options = PassOptions(workers=1)
    with open_store(root, repo_id="demo") as store:
        assert reconcile_pass(store, root, options).nodes is None  # a first index: all new
        write(root, {"m1.py": "X = 'changed'\n", "new.py": "Y = 1\n"})
        (root / "m2.py").unlink()
        report = reconcile_pass(store, root, options)
        assert report.nodes is not None and report.nodes.written == {"m1.py", "m2.py", "new.py"}
        with store.snapshot() as snap:
            scans = []
            snap.scan = lambda *args, **kw: scans.append(args) or type(snap).scan(snap, *args, **kw)
            lent = fn.records_in(store, snap, report.nodes)
            assert scans == []  # the lent scan was taken, not a scan again
            scanned = fn.records_in(store, snap)
        assert _nodes(lent) == _nodes(scanned) and "m2.py" not in lent and "new.py" in lent
        assert fn.file_node("m1.py", lent["m1.py"]).size == len("X = 'changed'\n")


def test_a_lent_scan_is_not_taken_once_another_pass_wrote(tmp_path):
    root = tmp_path / "repo"
    write(root, {f"m{i}.py": f"X = {i}\n" for i in range(6)})
    options = PassOptions(workers=1)
    with open_store(root, repo_id="demo") as store:
        reconcile_pass(store, root, options)
        write(root, {"m1.py": "X = 'one'\n"})
        first = reconcile_pass(store, root, options).nodes
        write(root, {"m3.py": "X = 'three, later'\n"})
        reconcile_pass(store, root, options)  # another writer since ``first``
        with store.snapshot() as snap:
            stale, scanned = fn.records_in(store, snap, first), fn.records_in(store, snap)
        assert _nodes(stale) == _nodes(scanned)
        assert fn.file_node("m3.py", stale["m3.py"]).size == len("X = 'three, later'\n")
