"""reconcile/nodes/package_node: directory entries, packages, depth."""

import pytest

from repoctx.crdt import record
from repoctx.reconcile.nodes import package_node as pn


@pytest.mark.parametrize("path, want", [
    ("a.py", (".", "a.py")),
    ("pkg/a.py", ("pkg", "a.py")),
    ("pkg/sub/m.py", ("pkg/sub", "m.py")),
    ("pkg/", (".", "pkg/")),
    ("pkg/sub/", ("pkg", "sub/")),
])
def test_parent_entry(path, want):
    assert pn.parent_entry(path) == want


def test_change_delta_children_and_is_package():
    rec = pn.change_delta(None, {"m.py", "sub/"}, set(), 1, "r1")
    assert pn.children(rec) == {"m.py", "sub/"} and not pn.is_package(rec)
    rec = record.merge(rec, pn.change_delta(rec, {"__init__.py"}, {"sub/"}, 2, "r1"))
    assert pn.children(rec) == {"m.py", "__init__.py"} and pn.is_package(rec)
    assert pn.change_delta(rec, {"m.py"}, {"sub/"}, 3, "r1") is None
    rec = record.merge(rec, pn.change_delta(rec, set(), {"m.py", "__init__.py"}, 4, "r1"))
    assert record.is_tombstone(rec) and pn.children(None) == frozenset()


def test_depth_orders_deepest_first():
    assert pn.depth(pn.TOP) == -1
    assert pn.depth("pkg") == 0 and pn.depth("pkg/sub") == 1 and pn.depth("a/b/c") == 2
