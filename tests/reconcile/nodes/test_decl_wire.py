"""reconcile/nodes/decl_wire: the version counts the declaration tuple's shapes."""

from repoctx.reconcile.nodes import file_node
from repoctx.reconcile.nodes.decl_wire import WIRE_VERSION
from repoctx.reconcile.nodes.symbol_record import Declaration


def test_the_version_moves_with_the_tuple_and_names_the_marker():
    # version 1 was seven elements; each later version added one (a tuple that grew
    # without the version raised would never be back-filled into older stores)
    shape = Declaration("function", "def f()", "", 1, 2, (), False).wire()
    assert len(shape) == 6 + WIRE_VERSION
    assert file_node.DECLS in file_node.MARKERS
    assert file_node.DECLS.endswith(f"-v{WIRE_VERSION}")
