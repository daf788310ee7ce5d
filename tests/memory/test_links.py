"""Link targets, relations and the digests captured for files and symbols."""

from __future__ import annotations

import pytest

from repoctx.errors import ToolError
from repoctx.memory import links
from repoctx.reconcile import Declaration
from repoctx.reconcile.nodes import symbol_record

from .conftest import key


def test_targets_must_be_file_symbol_or_memory_keys_of_this_repo():
    for good in (key("file", "a/b c.py"), key("symbol", "pkg.X"), key("mem", "t/i")):
        assert links.check_target("demo", good) == good
    for bad in ("x", key("pkg", "a"), "repo/other/file/a", key("mem", "t"), 5,
                key("mem", "t/i/j")):
        with pytest.raises(ToolError):
            links.check_target("demo", bad)


def test_a_file_whose_name_holds_a_control_character_is_linked_by_its_escaped_key(tmp_path):
    from repoctx import open_store
    from repoctx.trees import make_key

    from .conftest import index, write

    write(tmp_path, {"odd\tname.py": "X = 1\n"})
    with open_store(tmp_path, repo_id="demo") as store:
        index(store, tmp_path)
        target = make_key("demo", "file", "odd\tname.py")  # repo/demo/file/odd%09name.py
        assert links.check_target("demo", target) == target
        assert links.target_digest(store.get, target) is not None
    with pytest.raises(ToolError, match="not a key"):  # the raw name is not in the grammar
        links.check_target("demo", "repo/demo/file/odd\tname.py")


def test_parse_links_checks_the_shape():
    assert links.parse_links("demo", {"about": [key("file", "a")]}) == {
        ("about", key("file", "a"))}
    assert links.parse_links("demo", None) == frozenset()
    for bad in ([], {"about": key("file", "a")}, {"a b": [key("file", "a")]},
                {"x": [key("file", str(i)) for i in range(links.MAX_LINKS + 1)]}):
        with pytest.raises(ToolError):
            links.parse_links("demo", bad)


def test_file_digest_is_the_node_digest(indexed):
    digest = links.target_digest(indexed.get, key("file", "app.py"))
    assert digest is not None and len(digest) == 64
    assert links.target_digest(indexed.get, key("file", "missing.py")) is None
    assert links.target_digest(indexed.get, key("mem", "t/i")) is None


def test_symbol_digest_ignores_position_but_not_shape():
    decl = Declaration("function", "def f(x)", "", 10, 12, ("a", "b"), False)

    def rec(d):
        return symbol_record.declare_delta(None, "m.py", d, 1, "r1")

    moved = Declaration("function", "def f(x)", "", 40, 42, ("b", "a"), False)
    longer = Declaration("function", "def f(x)", "", 10, 20, ("a", "b"), False)
    assert links.symbol_digest(rec(decl)) == links.symbol_digest(rec(moved))
    assert links.symbol_digest(rec(decl)) != links.symbol_digest(rec(longer))
    assert links.symbol_digest(None) is None


def test_capture_skips_memory_targets_and_missing_records(indexed):
    pairs = frozenset({("a", key("file", "app.py")), ("a", key("file", "nope.py")),
                       ("b", key("mem", "t/i")), ("c", key("symbol", "app.Model"))})
    got = links.capture(indexed.get, pairs)
    assert set(got) == {key("file", "app.py"), key("symbol", "app.Model")}


def test_a_path_or_a_symbol_name_stands_for_its_key_when_the_store_indexes_it(indexed):
    get = indexed.get
    assert links.check_target("demo", "app.py", get) == key("file", "app.py")
    assert links.check_target("demo", "app.validate", get) == key("symbol", "app.validate")
    assert links.check_target("demo", key("file", "app.py"), get) == key("file", "app.py")
    for unknown in ("missing.py", "app.nope", ""):
        with pytest.raises(ToolError, match="neither a key nor a path or symbol"):
            links.check_target("demo", unknown, get)
    assert links.parse_links("demo", {"about": ["app.py"]}, get=get) == {
        ("about", key("file", "app.py"))}
