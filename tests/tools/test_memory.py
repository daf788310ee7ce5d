"""The memory tools through the shared registry: schemas, defaults, ranges, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from repoctx import memory, open_store
from repoctx.crdt import record
from repoctx.errors import ToolError
from repoctx.reconcile import reconcile_pass
from repoctx.retrieval import open_workspace
from repoctx.tools import registry as tools
from repoctx.tools.memory import TOOLS, memory_hits
from repoctx.trees import BY_FAMILY

NAMES = ["repocontext_remember", "repocontext_recall", "repocontext_update",
         "repocontext_forget", "repocontext_neighbors", "repocontext_scan",
         "repocontext_list_topics"]
KEY = "repo/demo/mem/design/auth"


@pytest.fixture
def ws(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    with open_store(tmp_path / "repo", repo_id="demo") as store:
        reconcile_pass(store, tmp_path / "repo")
    w = open_workspace(tmp_path / "repo", repo_id="demo")
    yield w
    w.close()


def stored(ws) -> dict[str, bytes]:
    with ws.store.snapshot() as snap:
        return {k: record.encode(r)
                for k, r in snap.scan_tree(BY_FAMILY["mem"], include_hidden=True)}


def test_every_memory_tool_is_registered_with_a_description():
    assert [t.name for t in TOOLS] == NAMES
    registry = tools.tools()
    for name in NAMES:
        assert registry[name].description and len(registry[name].description) > 30
    writers = {t.name for t in TOOLS if not t.read_only}
    assert writers == {"repocontext_remember", "repocontext_update", "repocontext_forget"}


def test_the_whole_cycle_through_call(ws):
    got = tools.call(ws, "repocontext_remember",
                     {"topic": "design", "id": "auth", "kind": "decision", "title": "JWT",
                      "body": "b", "tags": ["a"], "ttlSeconds": 3600,
                      "addLinks": {"see": ["repo/demo/mem/design/x"]}})
    assert got["key"] == KEY and got["created"] and got["expiresAtUtc"]
    view = tools.call(ws, "repocontext_recall", {"key": KEY})
    assert view["remainingSeconds"] in (3599, 3600) and view["stale"] is False
    tools.call(ws, "repocontext_update", {"key": KEY, "fields": {"title": "JWT2"},
                                          "addTags": ["b"], "removeTags": ["a"]})
    assert tools.call(ws, "repocontext_recall", {"key": KEY})["tags"] == ["b"]
    page = tools.call(ws, "repocontext_scan", {"scope": "memory"})
    assert page["entries"][0]["stale"] is None
    assert tools.call(ws, "repocontext_list_topics", {})["total"] == 1
    walk = tools.call(ws, "repocontext_neighbors", {"key": KEY})
    assert walk["neighbors"][0]["key"] == "repo/demo/mem/design/x"
    assert tools.call(ws, "repocontext_forget", {"key": KEY})["forgotten"] is True


def test_defaults_and_ranges_enforced(ws):
    tools.call(ws, "repocontext_remember", {"topic": "t", "id": "i"})
    assert tools.call(ws, "repocontext_recall", {"key": "repo/demo/mem/t/i"})["kind"] == "note"
    got = tools.call(ws, "repocontext_neighbors", {"key": "repo/demo/mem/t/i", "depth": 3})
    assert got["truncated"] is False
    with pytest.raises(ToolError, match=r"depth: must be an integer from 1 to 3 \(got 9\)"):
        tools.call(ws, "repocontext_neighbors", {"key": "repo/demo/mem/t/i", "depth": 9})
    with pytest.raises(ToolError, match="pageSize: must be an integer from 1 to"):
        tools.call(ws, "repocontext_scan", {"scope": "memory", "pageSize": 10_000})
    assert tools.call(ws, "repocontext_scan", {"scope": "memory"})
    lapsed = tools.call(ws, "repocontext_forget", {"key": "repo/demo/mem/t/i", "lapse": True})
    assert lapsed["lapsed"] and lapsed["expiresAtUtc"]


BAD = [
    ("repocontext_remember", {"topic": "t", "kind": "idea"}),
    ("repocontext_remember", {"topic": "t", "ttlSeconds": 0}),
    ("repocontext_remember", {"topic": "t", "ttlSeconds": -1}),
    ("repocontext_remember", {"topic": "t", "body": "x" * (1 << 20)}),
    ("repocontext_remember", {"topic": "a/b"}),
    ("repocontext_remember", {"topic": "t", "id": "x\x01"}),
    ("repocontext_remember", {"topic": "t", "id": "a/b"}),
    ("repocontext_remember", {"topic": "t", "addLinks": {"see": ["nope"]}}),
    ("repocontext_remember", {"topic": "t", "addLinks": ["repo/demo/file/a"]}),
    ("repocontext_remember", {"topic": "t", "colour": "red"}),
    ("repocontext_remember", {}),
    ("repocontext_recall", {"key": "repo/demo/mem/t"}),
    ("repocontext_update", {"key": "repo/demo/file/a.py", "fields": {"title": "x"}}),
    ("repocontext_update", {"key": KEY, "fields": {"title": "x"}}),
    ("repocontext_forget", {"key": "garbage"}),
    ("repocontext_forget", {"key": KEY, "lapseSeconds": 0}),
    ("repocontext_neighbors", {"key": KEY, "depth": 0}),
    ("repocontext_scan", {"scope": "everything"}),
    ("repocontext_scan", {"scope": "memory", "pageSize": 0}),
    ("repocontext_remember", {"topic": "t", "repoId": "someone-else"}),
]


@pytest.mark.parametrize(("name", "args"), BAD, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD)])
def test_bad_input_is_a_tool_error_with_nothing_written(ws, name, args):
    with pytest.raises(ToolError):
        tools.call(ws, name, args)
    assert stored(ws) == {}


def test_memory_hits_for_the_search(ws):
    memory.remember(ws.store, "auth", "jwt", title="JWT rotation", body="weekly")
    hits = memory_hits(ws, "jwt rotation", 3)
    assert hits[0]["key"] == "repo/demo/mem/auth/jwt" and hits[0]["kind"] == "memory"
    assert hits[0]["path"] is None and "phrase" in hits[0]["reasons"]
