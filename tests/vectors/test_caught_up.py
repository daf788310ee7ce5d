"""The caught-up mark: after a complete back-fill, a gap scan reads only what changed."""

import importlib

import pytest

from repoctx import open_store
from repoctx.memory.entries import remember
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.reconcile.nodes import file_node
from repoctx.vectors import backfill, caught_up, space_of
from repoctx.vectors.records import coverage
from tests.reconcile.helpers import write

from .conftest import make_repo


@pytest.fixture
def no_full_scan(monkeypatch):
    """Make a full gap scan fail the test: one after a complete back-fill must not run."""

    def scan(*args, **kwargs):
        raise AssertionError("the full gap scan ran")

    def forbid() -> None:
        module = importlib.import_module("repoctx.vectors.backfill")  # not the function
        monkeypatch.setattr(module, "live_sources", scan)

    return forbid


def covered(store, embedder):
    with store.snapshot() as snap:
        return coverage.read(snap, store.repo_id, space_of(embedder)).entries


def test_after_a_one_file_edit_only_that_files_sources_are_embedded(indexed, embedder,
                                                                     no_full_scan):
    store, root = indexed.store, indexed.root
    backfill(store, embedder)
    before = covered(store, embedder)
    body = (root / "pkg0/mod0.py").read_text()
    write(root, {"pkg0/mod0.py": body + "\n\nclass Added:\n    '''New.'''\n"})
    reconcile_pass(store, root, PassOptions(workers=1))
    declared = file_node.load_all(store)["pkg0/mod0.py"].symbols
    assert "pkg0.mod0.Added" in declared
    no_full_scan()
    report = backfill(store, embedder)
    after = covered(store, embedder)
    moved = {sid for sid in before.keys() | after.keys() if before.get(sid) != after.get(sid)}
    assert moved == {f"symbol:{fq}" for fq in declared}
    assert report.embedded + report.nil == len(declared) and report.retired == 0
    assert report.live == len(after) and report.remaining == 0


def _steps(root):
    """Changes of every kind a gap scan must follow, each to the tree (once) or to each
    store: an edit, a stub declaring the same names, the source it stubs removed (the
    stub becomes their primary), a new document, a removed file, a memory entry, the
    source back."""
    stub = "class Widget0:\n    def run(self) -> None: ...\n"
    body = (root / "pkg0/mod0.py").read_text()
    return [
        ("tree", lambda: write(root, {"pkg1/mod1.py": "def changed():\n    return 1\n"})),
        ("tree", lambda: write(root, {"pkg0/mod0.pyi": stub})),
        ("tree", lambda: (root / "pkg0/mod0.py").unlink()),
        ("tree", lambda: write(root, {"docs/notes.md": "# Notes\n\nShipping rules.\n"})),
        ("tree", lambda: (root / "README.md").unlink()),
        ("store", lambda store: remember(store, "ops", "deploy", title="Deploy",
                                         body="Not on Fridays.")),
        ("tree", lambda: write(root, {"pkg0/mod0.py": body})),
    ]


def test_plans_from_the_mark_match_full_scans(tmp_path, embedder, monkeypatch):
    """Two stores of one tree follow the same changes; one back-fills from its mark,
    the other (mark dropped each time) scans in full: both do the same and end with
    the same digest."""
    root = tmp_path / "repo"
    make_repo(root, 30)
    stores = [open_store(root, repo_id="demo", replica_id=f"r-{name}",
                         store_dir=tmp_path / name) for name in ("marked", "full")]
    module = importlib.import_module("repoctx.vectors.backfill")
    try:
        for store in stores:
            reconcile_pass(store, root, PassOptions(workers=1))
            backfill(store, embedder)
        did = []
        for where, change in _steps(root):
            if where == "tree":
                change()
            reports = []
            for marked, store in zip((True, False), stores, strict=True):
                if where == "store":
                    change(store)
                reconcile_pass(store, root, PassOptions(workers=1))
                with monkeypatch.context() as patch:
                    if marked:
                        patch.setattr(module, "live_sources", _refuse)
                    else:
                        with store.batch() as batch:
                            batch.delete_local(caught_up.MARK.format(repo="demo"))
                    reports.append(backfill(store, embedder).as_json())
            for report in reports:
                for varying in ("seconds", "retrained"):
                    report.pop(varying)
            assert reports[0] == reports[1]
            did.append(reports[0]["embedded"] + reports[0]["retired"] + reports[0]["nil"])
            assert covered(stores[0], embedder) == covered(stores[1], embedder)
        assert did[1] == 0 and all(did[:1] + did[2:])  # a stub alone changes no source
    finally:
        for store in stores:
            store.close()


def _refuse(*args, **kwargs):
    raise AssertionError("the full gap scan ran")


def test_a_write_to_the_vector_trees_by_another_makes_the_next_scan_full(indexed, embedder):
    store = indexed.store
    backfill(store, embedder)
    space = space_of(embedder)
    with store.snapshot() as snap:
        assert caught_up.holds(snap, "demo", space, ("file", "mem", "symbol")) is not None
        assert caught_up.holds(snap, "demo", space, ("file",)) is None  # other kinds
        assert caught_up.holds(snap, "demo", "another-space", ("file", "mem", "symbol")) is None
    with store.batch() as batch:
        coverage.invalidate(batch, "demo", store.tick(), store.replica_id)
    with store.snapshot() as snap:
        assert caught_up.holds(snap, "demo", space, ("file", "mem", "symbol")) is None
    assert backfill(store, embedder).digest_rebuilt


def test_a_mark_of_another_version_is_ignored(indexed, embedder):
    store = indexed.store
    backfill(store, embedder)
    name = caught_up.MARK.format(repo="demo")
    with store.snapshot() as snap:
        found = snap.get_local(name)
    with store.batch() as batch:
        batch.put_local(name, {**found, "version": caught_up.VERSION + 1})
    with store.snapshot() as snap:
        assert caught_up.holds(snap, "demo", space_of(embedder), ("file", "mem", "symbol")) \
            is None
