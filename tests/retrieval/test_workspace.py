"""retrieval/workspace: the export reader follows replacements; freshness by stat."""

import os
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from repoctx import deadline, open_store
from repoctx.errors import CallTimeoutError, NotIndexedError, StoreReadOnlyError, ToolError
from repoctx.reconcile import reconcile_pass
from repoctx.retrieval import open_workspace
from repoctx.trees import Snapshot


def test_the_reader_is_reused_then_reopened_when_the_export_is_replaced(fresh_shop):
    ws = fresh_shop
    first = ws.reader()
    assert ws.reader() is first
    copy = ws.export.with_name("new.sqlite")
    shutil.copy(ws.export, copy)
    os.replace(copy, ws.export)  # a new export renamed into place
    second = ws.reader()
    assert second is not first and ws.reader() is second


def test_no_export_is_a_tool_error(fresh_shop):
    fresh_shop.export.unlink()
    with pytest.raises(ToolError, match="no ContextPull export at .*repoctx index"):
        fresh_shop.reader()


def test_is_fresh_compares_size_and_mtime(fresh_shop):
    ws = fresh_shop
    assert ws.is_fresh("shop/cart.py")
    assert not ws.is_fresh("nope.py") and ws.node("nope.py") is None
    node = ws.node("shop/pricing.py")
    os.utime(ws.root / "shop/pricing.py", ns=(1, 1))
    assert not ws.is_fresh("shop/pricing.py", node)
    (ws.root / "README.md").unlink()
    assert not ws.is_fresh("README.md")


def test_inside_pinned_each_store_key_is_read_once(fresh_shop, monkeypatch):
    ws = fresh_shop
    reads, views = [], []
    real = Snapshot.get

    def get(snapshot, key):
        reads.append(key)
        views.append(id(snapshot))
        return real(snapshot, key)

    monkeypatch.setattr(Snapshot, "get", get)
    assert ws.node("shop/cart.py") == ws.node("shop/cart.py") and len(reads) == 2
    with ws.pinned():
        with ws.pinned():  # a nested scope shares the outer one
            first = ws.node("shop/cart.py")
        assert ws.node("shop/cart.py") == first and ws.node("nope.py") is None
        assert ws.node("nope.py") is None
    assert len(reads) == 4  # cart.py and nope.py once each
    assert views[2] == views[3]  # from one read transaction
    ws.node("shop/cart.py")
    assert len(reads) == 5  # the scope is over: reads go to the store again


def test_inside_pinned_a_view_of_a_record_is_made_once(fresh_shop):
    ws = fresh_shop
    made = []

    def view(rec):
        made.append(rec)
        return len(made)

    key = ws.store.key("file", "shop/cart.py")
    with ws.pinned():
        assert ws.view_of(key, view) == ws.view_of(key, view) == 1
    assert ws.view_of(key, view) == 2  # outside a scope: made at every call


def indexed(root: Path) -> Path:
    root.mkdir(exist_ok=True)
    (root / "a.py").write_text("A = 1\n")
    with open_store(root, repo_id="demo") as store:
        reconcile_pass(store, root)
    return root


def test_open_workspace_defaults_the_export_into_the_store(tmp_path):
    indexed(tmp_path)
    with open_workspace(tmp_path, repo_id="demo") as ws:
        assert ws.export == ws.store.path / "contextpull.sqlite"
        assert ws.root == tmp_path.resolve() and ws.stats.calls == 0
    with open_workspace(tmp_path, export=tmp_path / "x.sqlite") as ws:
        assert ws.export == tmp_path / "x.sqlite"


def test_a_repository_never_indexed_is_one_error_and_nothing_is_created(tmp_path):
    with pytest.raises(NotIndexedError, match=r"no index for .*: run `repoctx index "):
        open_workspace(tmp_path)
    with pytest.raises(NotIndexedError):
        open_workspace(tmp_path / "no" / "such" / "dir")
    assert list(tmp_path.iterdir()) == []
    open_store(tmp_path, repo_id="demo").close()  # a store with no pass is not an index
    with pytest.raises(NotIndexedError):
        open_workspace(tmp_path)


def test_a_read_only_workspace_reads_and_refuses_writes_by_name(tmp_path):
    indexed(tmp_path)
    with open_workspace(tmp_path, writable=False) as ws:
        assert ws.store.trees.readonly and ws.node("a.py") is not None
        with pytest.raises(StoreReadOnlyError, match="open read-only"):
            ws.store.merge(ws.store.key("file", "b.py"), ws.store.get(ws.store.key("file", "a.py")))


@pytest.mark.parametrize(("given", "expected"), [
    ("a.py", "a.py"), ("./a.py", "a.py"), ("src\\x.py", "src/x.py"), ("src//x/../y.py", "src/y.py"),
    ("src/", "src"), (".", ""), ("./", ""), ("src/*.py", "src/*.py"),
])
def test_repo_paths_are_normalised(shop, given, expected):
    assert shop.repo_path(given) == expected


def test_absolute_paths_inside_the_repository_are_accepted_and_outside_refused(shop):
    assert shop.repo_path(str(shop.root / "shop" / "cart.py")) == "shop/cart.py"
    assert shop.repo_path(str(shop.root)) == ""
    for outside in ("/etc/passwd", "../x.py", "a/../../x.py", str(shop.root.parent / "x.py"),
                    "C:\\x\\y.py"):
        with pytest.raises(ToolError, match="is outside the repository"):
            shop.repo_path(outside)


def test_a_call_past_its_deadline_stops_at_its_next_store_read(fresh_shop):
    ws = fresh_shop
    with deadline.bounded(60):
        assert ws.node("shop/cart.py") is not None
    with deadline.bounded(0.01, "repocontext_outline"), pytest.raises(
            CallTimeoutError, match="repocontext_outline took longer than 0.01 s"):
        time.sleep(0.02)
        ws.node("shop/cart.py")


def test_a_view_shares_the_store_and_stats_but_not_the_reader(fresh_shop):
    ws = fresh_shop
    view = ws.view()
    assert view.store is ws.store and view.stats is ws.stats and view.export == ws.export
    assert view.reader() is not ws.reader()
    with view.pinned():
        assert ws._pinned is None  # a call pinned on one view leaves the other's reads alone
    assert view.node("shop/cart.py") == ws.node("shop/cart.py")


@pytest.mark.parametrize("char", ["\0", "\n", "\x1b", "\x7f"])
def test_a_control_character_in_a_path_is_refused_naming_it_not_normalised_away(shop, char):
    from repoctx.tools import registry as tools

    given = f"shop/cart.py{char}../../../etc/passwd"
    named = re.escape(f"U+{ord(char):04X} at offset 12")
    with pytest.raises(ToolError, match=f"path: .* holds the control character {named}"):
        shop.repo_path(given)
    with pytest.raises(ToolError, match=f"path: .*{named}"):
        tools.call(shop, "repocontext_outline", {"path": given})
    with pytest.raises(ToolError, match=f"paths: .*{named}"):
        tools.call(shop, "repocontext_search", {"query": "cart", "paths": ["shop/", given]})


def test_repoctx_call_refuses_a_nul_in_a_path_as_a_tool_error(shop):
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "repoctx", "call", "repocontext_outline",
         json.dumps({"path": "shop/cart.py\0../../../etc/passwd"}), "--path", str(shop.root)],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    message = json.loads(done.stdout)["error"]["message"]
    assert message.startswith("path: ") and "U+0000 at offset 12" in message


STRUCTURAL = "repo-context-structural"


def counter() -> tuple[list[int], Callable[[], int]]:
    """A build that counts its runs, and the runs."""
    built: list[int] = []

    def build() -> int:
        built.append(1)
        return len(built)

    return built, build


def test_a_derived_value_is_built_once_per_generation_of_its_tree(fresh_shop):
    ws, (built, build), tree = fresh_shop, counter(), STRUCTURAL
    assert ws.derived("count", tree, build) == 1
    assert ws.view().derived("count", tree, build) == 1  # views share it
    (ws.root / "shop/new.py").write_text("X = 1\n")
    reconcile_pass(ws.store, ws.root)
    assert ws.derived("count", tree, build) == 2 and len(built) == 2


def test_kept_values_are_made_once_per_key_and_start_over_past_the_bound(fresh_shop):
    ws, (built, build), tree = fresh_shop, counter(), STRUCTURAL
    assert [ws.kept("kept", tree, key, build, 2) for key in "aab"] == [1, 1, 2]
    assert ws.kept("kept", tree, "c", build, 2) == 3  # two held: they start over
    assert ws.kept("kept", tree, "a", build, 2) == 4 and len(built) == 4
    (ws.root / "shop/new.py").write_text("X = 1\n")
    reconcile_pass(ws.store, ws.root)
    assert ws.kept("kept", tree, "a", build, 2) == 5  # a new generation: made again


def test_inside_pinned_a_tree_generation_is_read_once(fresh_shop):
    ws, (_, build), tree = fresh_shop, counter(), STRUCTURAL
    with ws.pinned():
        assert ws.derived("count", tree, build) == 1
        (ws.root / "shop/new.py").write_text("X = 1\n")
        reconcile_pass(ws.store, ws.root)  # a writer mid-call: the call keeps its view
        assert ws.derived("count", tree, build) == 1
    assert ws.derived("count", tree, build) == 2  # the next call sees the new generation


def test_indexed_is_every_live_file_node_and_follows_a_pass(fresh_shop):
    ws = fresh_shop
    assert "shop/cart.py" in ws.indexed() and "shop/missing.py" not in ws.indexed()
    assert all(ws.node(path) is not None for path in ws.indexed())
    os.remove(ws.root / "shop/cart.py")
    (ws.root / "shop/new.py").write_text("X = 1\n")
    reconcile_pass(ws.store, ws.root)
    assert "shop/cart.py" not in ws.indexed() and "shop/new.py" in ws.indexed()


def test_body_is_the_stored_text_of_an_indexed_file(fresh_shop):
    on_disk = (fresh_shop.root / "shop/cart.py").read_text()
    assert fresh_shop.body("shop/cart.py") == on_disk
    assert fresh_shop.body("shop/missing.py") is None
