"""The steps of a pass written in batches: a file whose projection fails is left out."""

from repoctx import open_store
from repoctx.crdt import record
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.reconcile.nodes import file_node, symbol_record

from .helpers import write
from .test_reconcile_pass import APP


def test_a_file_whose_projection_fails_is_skipped_and_the_rest_indexed(tmp_path):
    """A symbol record that decodes but holds a declaration of the wrong shape (a bug
    elsewhere, or a peer's) makes projecting ``app.py`` raise; the pass goes on. ``aaa.py``
    shares its batch and is projected first, so the retried batch must not count it twice."""
    from repoctx.crdt import or_map

    root = tmp_path / "repo"
    write(root, {"app.py": APP, "aaa.py": "def helper():\n    return 1\n"})
    with open_store(root, repo_id="demo") as store:
        reconcile_pass(store, root, PassOptions(workers=1))
        key = store.key("symbol", "app.validate")
        with store.batch() as batch:
            state = record.field_state(batch.get(key), symbol_record.DECL, or_map)
            bad = or_map.put(state, "elsewhere.py", ("function",), store.tick(), "peer")
            batch.merge(key, record.write({symbol_record.DECL: bad}, store.tick()))
        write(root, {"app.py": "LIMIT = 3\n" + APP, "new.py": "def fresh():\n    pass\n",
                     "aaa.py": "def helper():\n    return 2\n"})
        report = reconcile_pass(store, root, PassOptions(workers=1, batch_files=2))
        assert report.skipped["failed"] == 1 and report.skipped_paths["failed"] == ["app.py"]
        assert report.added == 1 and report.changed == 1  # new.py, aaa.py
        assert any("'app.py' not indexed" in w for w in report.warnings)
        nodes = file_node.load_all(store)
        assert nodes["new.py"].symbols == ("new.fresh",)
        assert "LIMIT" not in str(nodes["app.py"].symbols)  # left as it was, for next pass
        assert store.get(store.key("symbol", "new.fresh")) is not None
        again = reconcile_pass(store, root, PassOptions(workers=1))
        assert again.skipped["failed"] == 1 and again.added == again.changed == 0


def test_a_damaged_record_a_pass_writes_over_is_reported(tmp_path):
    root = tmp_path / "repo"
    write(root, {"app.py": APP})
    with open_store(root, repo_id="demo") as store:
        reconcile_pass(store, root, PassOptions(workers=1))
        key = store.key("content", "app.py")
        env = store.trees.env
        with env.begin(write=True, db=store.trees.dbs["repo-context-content"]) as txn:
            assert txn.put(key.encode(), b"\xc1 not msgpack")
        (root / "app.py").write_text(APP + "\n\nX = 1\n")  # the pass rewrites its content
        report = reconcile_pass(store, root, PassOptions(workers=1))
        assert any(w.startswith(f"replaced a damaged record: corrupt record {key!r}")
                   for w in report.warnings), report.warnings
        again = reconcile_pass(store, root, PassOptions(workers=1))
        assert not again.warnings
