"""neighbors: breadth-first over links both ways, staleness per neighbour, bounds."""

from __future__ import annotations

import pytest

from repoctx import memory
from repoctx.errors import ToolError

from .conftest import APP, index, key, write

FILE = key("file", "app.py")


def remember(store, entry_id, **links):
    return memory.remember(store, "t", entry_id, title=entry_id, add_links=links or None)["key"]


def test_out_and_in_edges_with_depth(indexed):
    a = remember(indexed, "a", about=[FILE], see=[key("mem", "t/b")])
    remember(indexed, "b")
    remember(indexed, "c", about=[FILE])
    one = memory.neighbors(indexed, a)
    assert [(n["key"], n["direction"]) for n in one["neighbors"]] == [
        (FILE, "out"), (key("mem", "t/b"), "out")]
    two = memory.neighbors(indexed, a, depth=2)
    assert key("mem", "t/c") in [n["key"] for n in two["neighbors"]]
    c = next(n for n in two["neighbors"] if n["key"] == key("mem", "t/c"))
    assert (c["depth"], c["via"], c["direction"]) == (2, FILE, "in")


def test_every_neighbour_is_evaluated_for_staleness(indexed, repo):
    a = remember(indexed, "a", about=[FILE])
    remember(indexed, "b", see=[a], uses=[key("symbol", "gone.X")])
    write(repo, {"app.py": APP + "\n# drift\n"})
    index(indexed, repo)
    got = memory.neighbors(indexed, key("mem", "t/b"), depth=2)["neighbors"]
    by_key = {n["key"]: n for n in got}
    assert by_key[a]["stale"] is True and by_key[a]["staleLinks"] == [FILE]
    assert by_key[FILE]["stale"] is True and by_key[FILE]["danglingLinks"] == []
    gone = by_key[key("symbol", "gone.X")]
    assert gone["exists"] is False and gone["danglingLinks"] == [key("symbol", "gone.X")]


def test_a_walk_from_a_file_finds_the_notes_about_it(indexed):
    remember(indexed, "a", about=[FILE])
    got = memory.neighbors(indexed, FILE)
    assert got["exists"] is True
    assert [n["key"] for n in got["neighbors"]] == [key("mem", "t/a")]


def test_relation_filter_and_truncation(store):
    targets = [key("mem", f"t/x{i}") for i in range(5)]
    a = remember(store, "a", see=targets, other=[key("mem", "t/y")])
    assert len(memory.neighbors(store, a, relation="other")["neighbors"]) == 1
    got = memory.neighbors(store, a, max_nodes=3)
    assert len(got["neighbors"]) == 3 and got["truncated"] is True
    assert memory.neighbors(store, a, max_nodes=100)["truncated"] is False


def test_bad_start_keys_are_tool_errors(store):
    for bad in ("x", key("pkg", "a"), key("mem", "t")):
        with pytest.raises(ToolError):
            memory.neighbors(store, bad)
    assert memory.neighbors(store, key("mem", "t/none"))["exists"] is False
