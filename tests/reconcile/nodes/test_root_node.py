"""reconcile/nodes/root_node: counts and the last pass that changed them."""

from repoctx.crdt import record
from repoctx.reconcile.nodes import root_node


def test_root_delta_and_summary():
    assert root_node.summary(None) == {"files": None, "symbols": None, "last_pass": None}
    rec = root_node.root_delta(None, 3, 5, {"added": 3}, 1, "r1")
    assert root_node.summary(rec) == {"files": 3, "symbols": 5, "last_pass": {"added": 3}}
    assert root_node.root_delta(rec, 3, 5, {"added": 3}, 2, "r1") is None
    delta = root_node.root_delta(rec, 4, 5, {"added": 1}, 2, "r1")
    assert set(delta.fields) == {"files", "last_pass", "$tick"}
    assert root_node.summary(record.merge(rec, delta))["files"] == 4
