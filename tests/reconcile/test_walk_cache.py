"""The saved walk: an unchanged tree is proven by stat alone, and any change falls back."""

import importlib
import os
import time
from dataclasses import replace
from pathlib import Path

import pytest

from repoctx import open_store
from repoctx.reconcile import PassOptions, reconcile_pass, walk, walk_cache
from repoctx.reconcile.report import PassReport
from tests.conftest import lww_record

from .helpers import write

reconcile_pass_module = importlib.import_module("repoctx.reconcile.reconcile_pass")
walk_module = importlib.import_module("repoctx.reconcile.walk")

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
        store.trees.merge(store.key("file", "app.py"), lww_record(store, language="text"))
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
        store.trees.merge(store.key("file", "app.py"), lww_record(store, language="text"))
    assert not rechecked(run(repo))


def test_writes_to_other_trees_keep_it(repo):
    settle(repo)
    with open_store(repo, repo_id="demo") as store:
        key = store.key("mem", "note")
        store.trees.merge(key, lww_record(store, body="hi"))
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
    pool = importlib.import_module("repoctx.reconcile.pool")  # the pass imports it per pass
    analyse_all = pool.analyse_all

    def damaged(root, jobs, workers):
        return (damage(a) if a.path == "app.py" else a
                for a in analyse_all(root, jobs, workers))

    monkeypatch.setattr(pool, "analyse_all", damaged)
    settle(repo)
    monkeypatch.setattr(pool, "analyse_all", analyse_all)
    report = run(repo)
    assert not rechecked(report) and report.added + report.backfilled["symbols"] == 1
    assert rechecked(run(repo))


NESTED = {"lib/sub/deep.py": "Z = 3\n", "lib/.gitignore": "*.log\n", "lib/sub/x.log": "log\n",
          "notes.log": "log\n", "docs/img/a.txt": "a\n"}


def saved_listings(root: Path) -> dict:
    """The listings of the walk the last settled pass saved."""
    with open_store(root, repo_id="demo") as store:
        scope = reconcile_pass_module._scope(store, PassOptions())
        return walk_cache.load(store, root, scope).listings()


def replace_atomically(path: Path, body: str) -> None:
    path.with_name(path.name + ".tmp").write_text(body)
    os.replace(path.with_name(path.name + ".tmp"), path)


@pytest.mark.parametrize("change", [
    lambda root: None,
    lambda root: (root / "lib/sub/deep.py").write_text("Z = 4  # edited in place\n"),
    lambda root: replace_atomically(root / "lib/sub/deep.py", "Z = 5\n"),
    lambda root: write(root, {"lib/sub/new.py": "N = 1\n"}),
    lambda root: (root / "docs/img/a.txt").unlink(),
    lambda root: (root / ".gitignore").write_text("build/\n*.md\n"),  # in place: docs/ unchanged
    lambda root: (root / ".gitignore").write_text(""),
    lambda root: (root / "lib/.gitignore").write_text(""),
    lambda root: (root / "lib/.gitignore").unlink(),
    lambda root: write(root, {"docs/.repoctxignore": "img/\n"}),
    lambda root: ((root / "lib/util.py").unlink(), (root / "lib/util.py").mkdir()),
    lambda root: os.mkfifo(root / "lib/sub/pipe"),
], ids=["none", "edit", "atomic-edit", "add", "delete", "root-ignore-grows",
        "root-ignore-empties", "nested-ignore-empties", "nested-ignore-removed",
        "new-ignore-file", "file-becomes-dir", "fifo"])
def test_a_walk_from_the_saved_listings_equals_a_fresh_walk(repo, change):
    write(repo, NESTED)
    time.sleep(0.05)
    settle(repo)
    previous = saved_listings(repo)
    assert set(previous) >= {"", "lib", "lib/sub", "docs", "docs/img"}
    change(repo)
    reused = walk(repo, store_dir=repo / ".repoctx", previous=previous)
    fresh = walk(repo, store_dir=repo / ".repoctx")
    assert reused == fresh


def test_an_edit_in_place_lists_no_directory(repo, monkeypatch):
    write(repo, NESTED)
    time.sleep(0.05)
    settle(repo)
    previous = saved_listings(repo)
    (repo / "lib/sub/deep.py").write_text("Z = 4\n")
    listed = []
    scandir = os.scandir
    monkeypatch.setattr(walk_module.os, "scandir",
                        lambda path: listed.append(path) or scandir(path))
    found = walk(repo, store_dir=repo / ".repoctx", previous=previous)
    assert listed == [] and "lib/sub/deep.py" in {f.path for f in found.files}
    report = run(repo)
    assert report.changed == 1 and report.unchanged == len(found.files) - 2  # + data.bin


def test_a_racy_directory_is_listed_again_and_its_files_still_count_as_settled(repo, monkeypatch):
    monkeypatch.setattr(walk_cache, "RACY_NS", 3600 * 10**9)
    settle(repo)
    previous = saved_listings(repo)
    assert all(listing.ctime == walk_cache.UNTRUSTED for listing in previous.values())
    (repo / "app.py").write_text("def run():\n    return 3\n")
    decoded = []
    stat_of = reconcile_pass_module.fn.stat_of
    monkeypatch.setattr(reconcile_pass_module.fn, "stat_of",
                        lambda rec: decoded.append(rec) or stat_of(rec))
    report = run(repo)
    assert report.changed == 1 and report.unchanged == 3 and len(decoded) == 1


def test_the_walk_is_saved_in_columns_and_replaces_the_format_1_entry(repo):
    with open_store(repo, repo_id="demo") as store, store.batch() as batch:
        batch.put_local("walk-cache/demo", {"root": str(repo), "paths": ["app.py"]})
    settle(repo)
    with open_store(repo, repo_id="demo") as store:
        value = store.trees.get_local(walk_cache._name(store))
        assert store.trees.get_local("walk-cache/demo") is None  # an older repoctx walks
    assert value["format"] == walk_cache.FORMAT and value["pathsCount"] == 5
    assert isinstance(value["paths"], str) and isinstance(value["sizes"], bytes)
    assert len(value["sizes"]) == len(value["mtimes"]) == 8 * 5
    assert rechecked(run(repo))


@pytest.mark.parametrize("damage", [{"paths": 7}, {"sizes": b"\0" * 5}, {"pathsCount": 3},
                                    {"format": 1}, {"root": None}, {"generation": None},
                                    {"scope": None}])
def test_a_saved_walk_that_does_not_unpack_is_walked_afresh(repo, damage):
    settle(repo)
    with open_store(repo, repo_id="demo") as store:
        name = walk_cache._name(store)
        with store.batch() as batch:  # a None is a key the value lacks
            batch.put_local(name, {key: value for key, value in
                                   (store.trees.get_local(name) | damage).items()
                                   if value is not None})
    report = run(repo)
    assert not rechecked(report) and report.unchanged == 4 and report.records_written == 0
    assert rechecked(run(repo))  # the walk saved afresh


def test_walk_again_lists_an_unchanged_directory_from_the_saved_walk(repo, monkeypatch):
    write(repo, NESTED)
    time.sleep(0.05)
    settle(repo)
    (repo / "lib/sub/deep.py").write_text("Z = 5\n")
    listed = []
    scandir = os.scandir
    monkeypatch.setattr(walk_module.os, "scandir",
                        lambda path: listed.append(path) or scandir(path))
    with open_store(repo, repo_id="demo") as store:
        again = walk_cache.walk_again(store, repo)
    assert listed == []
    assert again == walk(repo, store_dir=repo / ".repoctx")


def test_walk_again_after_a_change_equals_a_fresh_walk(repo):
    write(repo, NESTED)
    time.sleep(0.05)
    settle(repo)
    write(repo, {"lib/sub/new.py": "N = 1\n"})
    (repo / "docs/guide.md").unlink()
    with open_store(repo, repo_id="demo") as store:
        assert walk_cache.walk_again(store, repo) == walk(repo, store_dir=repo / ".repoctx")


def test_listings_are_not_reused_for_a_walk_of_other_bounds(repo):
    settle(repo)
    with open_store(repo, repo_id="demo") as store:
        same = walk_cache.walk_scope(store, 64, 200_000, ())
        assert walk_cache.listings_for(store, repo, same) is not None
        other = walk_cache.walk_scope(store, 64, 10, ())
        assert walk_cache.listings_for(store, repo, other) is None


def test_walk_again_without_a_saved_walk_walks(repo):
    settle(repo)
    write(repo, {"lib/new.py": "N = 1\n"})
    with open_store(repo, repo_id="demo") as store:
        with store.batch() as batch:
            batch.delete_local(walk_cache._name(store))
        assert walk_cache.listings_for(store, repo, walk_cache.walk_scope(
            store, 64, 200_000, ())) is None
        assert walk_cache.walk_again(store, repo) == walk(repo, store_dir=repo / ".repoctx")
