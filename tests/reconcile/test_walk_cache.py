"""The saved walk: an unchanged tree is proven by stat alone, and any change falls back."""

import importlib
import os
import time
from dataclasses import replace
from pathlib import Path

import pytest

from repoctx import open_store
from repoctx.crdt import lww_register, record
from repoctx.reconcile import PassOptions, reconcile_pass, walk_cache
from repoctx.reconcile.report import PassReport

from .helpers import write

reconcile_pass_module = importlib.import_module("repoctx.reconcile.reconcile_pass")

FILES = {"app.py": "def run():\n    return 1\n", "lib/util.py": "X = 1\n",
         "docs/guide.md": "# Guide\n", "data.bin": b"\0\1\2" * 10,
         ".gitignore": "build/\n", "build/out.py": "ignored = True\n"}


@pytest.fixture
def repo(tmp_path, monkeypatch):
    # Trust ctimes older than the walk itself; the pause puts the tree's ctimes in an
    # earlier clock tick than any change a test makes after a pass.
    monkeypatch.setattr(walk_cache, "RACY_NS", 0)
    root = tmp_path / "repo"
    write(root, FILES)
    time.sleep(0.05)
    return root


def run(root: Path, **options) -> PassReport:
    with open_store(root, repo_id="demo") as store:
        return reconcile_pass(store, root, PassOptions(workers=1, **options))


def settle(root: Path) -> PassReport:
    """Index: a pass that leaves nothing to do saves its walk."""
    report = run(root)
    assert "walk" in report.seconds
    return report


def lww(store, value: object) -> lww_register.LwwRegister:
    return lww_register.set_value(lww_register.empty(), value, store.tick(), store.replica_id)


def rechecked(report: PassReport) -> bool:
    return "walk" not in report.seconds


def comparable(report: PassReport) -> dict:
    out = report.as_json()
    out.pop("seconds")
    return out


def test_an_unchanged_tree_is_settled_by_stat_with_the_same_report(repo, monkeypatch):
    settle(repo)
    fast = run(repo)
    assert rechecked(fast)
    with monkeypatch.context() as patched:
        patched.setattr(walk_cache, "recheck", lambda *args: None)
        slow = run(repo)
    assert not rechecked(slow)
    assert comparable(fast) == comparable(slow)
    assert fast.unchanged == 4 and fast.skipped["binary"] == 1


def test_a_writer_between_the_pass_and_its_save_invalidates_it(repo, monkeypatch):
    save = walk_cache.save

    def interrupted(store, *args):
        store.trees.merge(store.key("file", "app.py"), record.write({"language": lww(
            store, "text")}, store.tick()))
        save(store, *args)

    monkeypatch.setattr(walk_cache, "save", interrupted)
    settle(repo)
    monkeypatch.setattr(walk_cache, "save", save)
    assert not rechecked(run(repo))


@pytest.mark.parametrize("change", [
    lambda root: (root / "app.py").write_text("def run():\n    return 2\n"),
    lambda root: write(root, {"lib/new.py": "Y = 2\n"}),
    lambda root: (root / "docs/guide.md").unlink(),
    lambda root: os.rename(root / "lib/util.py", root / "lib/tools.py"),
    lambda root: (root / ".gitignore").write_text(""),
    lambda root: os.utime(root / "data.bin", ns=(1, 1)),
], ids=["edit", "add", "delete", "rename", "ignore-rules", "touch-binary"])
def test_any_change_falls_back_to_the_walk_and_is_indexed(repo, change):
    settle(repo)
    change(repo)
    report = run(repo)
    assert not rechecked(report)
    assert report.added + report.changed + report.removed + report.touched >= 1 or (
        report.skipped["binary"] == 1)
    assert rechecked(run(repo))  # the indexing pass left nothing to do: it saved its walk


def test_a_chmod_of_an_ignore_file_is_seen(repo):
    settle(repo)
    os.chmod(repo / ".gitignore", 0o644 if os.access(repo / ".gitignore", os.X_OK) else 0o755)
    assert not rechecked(run(repo))


def test_a_write_to_the_structural_tree_by_anyone_else_invalidates(repo):
    settle(repo)
    with open_store(repo, repo_id="demo") as store:
        store.trees.merge(store.key("file", "app.py"), record.write({"language": lww(
            store, "text")}, store.tick()))
    assert not rechecked(run(repo))


def test_writes_to_other_trees_keep_it(repo):
    settle(repo)
    with open_store(repo, repo_id="demo") as store:
        key = store.key("mem", "note")
        store.trees.merge(key, record.write({"body": lww(store, "hi")}, store.tick()))
    assert rechecked(run(repo))


def test_other_options_and_full_passes_walk(repo):
    settle(repo)
    assert not rechecked(run(repo, xref=False))
    assert not rechecked(run(repo, full=True))


def test_a_walk_with_recent_directory_changes_is_not_saved(repo, monkeypatch):
    monkeypatch.setattr(walk_cache, "RACY_NS", 3600 * 10**9)
    settle(repo)
    assert not rechecked(run(repo))


def test_a_walk_through_a_symlink_is_not_saved(repo):
    (repo / "alias.py").symlink_to(repo / "app.py")
    time.sleep(0.05)
    settle(repo)
    assert not rechecked(run(repo))


@pytest.mark.parametrize("damage", [
    lambda a: replace(a, error="unreadable"),
    lambda a: replace(a, decls=None),  # read, but its symbols were not extracted
], ids=["unreadable", "unprojected"])
def test_a_pass_that_leaves_work_behind_saves_nothing(repo, monkeypatch, damage):
    analyse_all = reconcile_pass_module.analyse_all

    def damaged(root, jobs, workers):
        return (damage(a) if a.path == "app.py" else a
                for a in analyse_all(root, jobs, workers))

    monkeypatch.setattr(reconcile_pass_module, "analyse_all", damaged)
    settle(repo)
    monkeypatch.setattr(reconcile_pass_module, "analyse_all", analyse_all)
    report = run(repo)
    assert not rechecked(report) and report.added + report.backfilled["symbols"] == 1
    assert rechecked(run(repo))
