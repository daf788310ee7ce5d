"""reconcile/nodes/decl_wire: the version counts the declaration tuple's shapes."""

from repoctx.reconcile.nodes import file_node
from repoctx.reconcile.nodes.decl_wire import WIRE_VERSION
from repoctx.reconcile.nodes.symbol_record import Declaration


def test_the_version_moves_with_the_tuple_and_names_the_marker():
    # version 1 was seven elements; 2 and 3 added one each (a tuple that grew without
    # the version raised would never be back-filled into older stores); 4 kept the
    # shape and re-projects what the JavaScript/TypeScript extractor now fills in, and 5
    # its receiver chains
    lengths = {1: 7, 2: 8, 3: 9, 4: 9, 5: 9}
    shape = Declaration("function", "def f()", "", 1, 2, (), False).wire()
    assert len(shape) == lengths[WIRE_VERSION]
    assert file_node.DECLS in file_node.MARKERS
    assert file_node.DECLS.endswith(f"-v{WIRE_VERSION}")
