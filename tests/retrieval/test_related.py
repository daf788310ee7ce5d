"""retrieval/related: imports, dependents and covering tests of a file or a symbol."""

import pytest

from repoctx.errors import ToolError
from repoctx.retrieval.related import imports, related

TESTS = [{"symbol": "tests.test_cart.TestCart", "path": "tests/test_cart.py"},
         {"symbol": "tests.test_cart.TestCart.test_total", "path": "tests/test_cart.py"},
         {"symbol": "tests.test_cart.test_checkout", "path": "tests/test_cart.py"}]


def test_related_of_a_file(shop):
    got = related(shop, path="shop/cart.py")
    assert got["imports"] == [{"module": "shop.pricing", "path": "shop/pricing.py"}]
    assert [d["symbol"] for d in got["dependents"]] == [
        "shop.cart.checkout", "tests.test_cart.TestCart.test_total",
        "tests.test_cart.test_checkout"]
    assert got["tests"] == TESTS


def test_related_of_a_symbol(shop):
    simple = related(shop, symbol="Cart")
    assert simple["path"] is None and simple["imports"] == [] and simple["tests"] == TESTS
    full = related(shop, symbol="shop.pricing.Discount")
    assert full["path"] == "shop/pricing.py"
    assert [d["symbol"] for d in full["dependents"]] == ["shop.cart.Cart.total",
                                                        "shop.cart.checkout"]
    assert full["tests"] == []


def test_imports_resolve_only_to_indexed_files(shop):
    assert imports(shop, "tests/test_cart.py") == [{"module": "shop.cart",
                                                    "path": "shop/cart.py"}]
    assert imports(shop, "README.md") == []


def test_exactly_one_of_path_or_symbol(shop):
    with pytest.raises(ToolError, match="exactly one"):
        related(shop)
    with pytest.raises(ToolError, match="exactly one"):
        related(shop, path="shop/cart.py", symbol="Cart")
    with pytest.raises(ToolError, match="'nope.py' is not in the index"):
        related(shop, path="nope.py")
