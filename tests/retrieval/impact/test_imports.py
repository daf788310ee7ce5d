"""retrieval/impact/imports: a stored file's imports, each with the indexed file it names."""

from repoctx.retrieval.impact.imports import imports


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
