"""reconcile/nodes/links_wire: the version names the marker a back-fill looks for."""

from repoctx.extract import Links
from repoctx.reconcile.nodes import file_node
from repoctx.reconcile.nodes.links_wire import LINKS_VERSION


def test_the_version_moves_with_the_wire_and_names_the_marker():
    # version 1: (imports, bindings, reexports); a shape that changed without the
    # version raised would never be written into older stores
    assert len(Links().wire()) == {1: 3}[LINKS_VERSION]
    assert file_node.LINKS in file_node.MARKERS
    assert file_node.LINKS.endswith(f"-v{LINKS_VERSION}")
