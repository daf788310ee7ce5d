"""retrieval/impact/imports: a stored file's imports, each with the indexed file it names."""

from repoctx.retrieval.impact.imports import imports
from repoctx.retrieval.impact.store_files import bindings, reexports


def test_imports_resolve_only_to_indexed_files(shop):
    assert imports(shop, "tests/test_cart.py") == [{"module": "shop.cart",
                                                    "path": "shop/cart.py"}]
    assert imports(shop, "README.md") == []


def test_relative_imports_resolve_to_files(pkg_ws):
    assert imports(pkg_ws, "pkg/sub/mod.py") == [
        {"module": "..bp", "path": "pkg/bp.py"},  # from .. import bp; from ..bp import …
        {"module": ".helpers", "path": "pkg/sub/helpers.py"},  # from . import helpers
        {"module": "os", "path": None}]
    assert imports(pkg_ws, "pkg/__init__.py") == [
        {"module": ".bp", "path": "pkg/bp.py"},  # a submodule
        {"module": ".", "path": "pkg/__init__.py"}]  # a name the package defines


def test_a_store_without_stored_links_reads_the_same_imports_from_the_bodies(pkg_ws,
                                                                           monkeypatch):
    paths = ("pkg/sub/mod.py", "pkg/__init__.py")
    stored = {p: (imports(pkg_ws, p), bindings(pkg_ws, p), reexports(pkg_ws, p))
              for p in paths}
    assert all(pkg_ws.links(p) is not None for p in paths)
    monkeypatch.setattr(pkg_ws, "links", lambda path: None)  # as an older store holds
    assert {p: (imports(pkg_ws, p), bindings(pkg_ws, p), reexports(pkg_ws, p))
            for p in paths} == stored
