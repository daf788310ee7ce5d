"""Bulk pages in key order with continuation tokens, and the topic list."""

from __future__ import annotations

import pytest

from repoctx import memory
from repoctx.errors import ToolError

from .conftest import key


def fill(store, n=7):
    for i in range(n):
        memory.remember(store, "alpha" if i % 2 else "beta", f"e{i}", title=f"entry {i}")


def test_pages_walk_every_entry_once_in_key_order(store):
    fill(store)
    seen, token = [], None
    while True:
        page = memory.scan(store, "memory", page_size=3, continuation_token=token)
        seen += [e["key"] for e in page["entries"]]
        token = page["continuationToken"]
        if token is None:
            break
    assert seen == sorted(seen) and len(seen) == 7 == len(set(seen))


def test_topic_scope_and_path_prefix_narrow_the_range(store):
    fill(store)
    got = memory.scan(store, "topic", topic="alpha")["entries"]
    assert [e["id"] for e in got] == ["e1", "e3", "e5"]
    got = memory.scan(store, "topic", topic="alpha", path_prefix="e3")["entries"]
    assert [e["id"] for e in got] == ["e3"]
    assert len(memory.scan(store, "memory", path_prefix="beta/")["entries"]) == 4


def test_files_packages_and_symbols_scopes(indexed):
    files = memory.scan(indexed, "files")["entries"]
    assert [e["path"] for e in files] == ["README.md", "app.py"]
    assert files[1]["digest"] and files[1]["language"] == "python"
    symbols = memory.scan(indexed, "symbols", path_prefix="app.M")["entries"]
    assert [e["fqName"] for e in symbols] == ["app.Model", "app.Model.save"]
    assert symbols[0]["paths"] == ["app.py"] and symbols[0]["kind"] == "class"
    packages = memory.scan(indexed, "packages")["entries"]
    assert packages[0]["path"] == "." and "app.py" in packages[0]["children"]


def test_forgotten_entries_are_not_listed(store):
    fill(store, 3)
    memory.forget(store, key("mem", "beta/e0"))
    assert len(memory.scan(store, "memory")["entries"]) == 2
    assert memory.list_topics(store) == {"topics": [{"topic": "alpha", "count": 1},
                                                    {"topic": "beta", "count": 1}], "total": 2}


@pytest.mark.parametrize(("args", "message"), [
    ({"scope": "nope"}, "scope"), ({"scope": "topic"}, "topic"),
    ({"scope": "memory", "topic": "x"}, "topic"), ({"scope": "topic", "topic": "a/b"}, "topic"),
    ({"scope": "memory", "continuation_token": "!!"}, "continuationToken"),
    ({"scope": "files", "path_prefix": "a\nb"}, "pathPrefix"),
])
def test_bad_scan_arguments_are_tool_errors(store, args, message):
    with pytest.raises(ToolError, match=message):
        memory.scan(store, args.pop("scope"), **args)


def test_a_token_only_continues_the_scan_it_came_from(store):
    fill(store)
    token = memory.scan(store, "memory", page_size=1)["continuationToken"]
    with pytest.raises(ToolError, match="another scope"):
        memory.scan(store, "files", continuation_token=token)
