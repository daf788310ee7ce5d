"""retrieval/definition_slices: a large class goes as its header and matching members."""

from __future__ import annotations

import pytest

from repoctx import open_store
from repoctx.contextpull import export_store
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.retrieval import Workspace
from repoctx.retrieval.definition_slices import (
    LARGE_CLASS_LINES,
    best_members,
    task_words,
)
from repoctx.retrieval.expansion import Target
from repoctx.retrieval.receipts import SLICE
from repoctx.retrieval.units import load, slice_units

from .context_repo import write


def _method(i: int) -> str:
    return f"    def step{i}(self, value):\n        return value + {i}\n\n"


BIG = ('class Engine:\n    """Runs the steps."""\n\n    limit = 3\n\n'
       + "".join(_method(i) for i in range(LARGE_CLASS_LINES // 3 + 5))
       + "    @property\n    def throttle_rate(self):\n        return self.limit * 2\n")


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("engine") / "repo"
    write(root, {"pkg/__init__.py": "", "pkg/engine.py": BIG})
    store = open_store(root, repo_id="engine", replica_id="r1")
    reconcile_pass(store, root, PassOptions(workers=1))
    export_store(store, root, store.path / "contextpull.sqlite")
    workspace = Workspace(store, root.resolve(), store.path / "contextpull.sqlite")
    yield workspace
    workspace.close()


def test_a_large_class_is_its_header_and_the_member_the_task_names(ws):
    src = load(ws, Target("pkg/engine.py", ("pkg.engine.Engine",), (), ("t",)))
    units = slice_units(src, budget=2_000, words=task_words("throttle_rate is doubled"))
    assert [u.kind for u in units] == [SLICE, SLICE]
    header, member = (u.body for u in units)
    assert header["symbol"] == "pkg.engine.Engine"
    assert header["text"].startswith("class Engine:") and "limit = 3" in header["text"]
    assert "def step0" not in header["text"]  # the header stops before the first member
    assert member["symbol"] == "pkg.engine.Engine.throttle_rate"
    assert member["text"].lstrip().startswith("@property")  # whole, decorator included
    assert member["text"].rstrip().endswith("return self.limit * 2")
    assert units[0].receipt != units[1].receipt


def test_without_matching_members_the_header_alone_stands_for_the_class(ws):
    src = load(ws, Target("pkg/engine.py", ("pkg.engine.Engine",), (), ("t",)))
    units = slice_units(src, budget=2_000, words=task_words("nothing relevant here"))
    assert len(units) == 1 and units[0].body["lines"][0] == 1
    assert units[0].body["lines"][1] < 10


def test_members_are_ranked_by_named_then_by_words_in_their_bodies():
    lines = ["def a():\n", "    cache timeout\n", "def b():\n", "    cache\n",
             "def cache_timeout():\n", "    pass\n"]
    members = [(1, 2, "m.a"), (3, 4, "m.b"), (5, 6, "m.cache_timeout")]
    chosen = best_members(members, lines, frozenset({"cache", "timeout", "cache_timeout"}))
    assert [name for *_, name in chosen] == ["m.cache_timeout", "m.a", "m.b"]
    assert best_members(members, lines, frozenset({"unrelated"})) == []
