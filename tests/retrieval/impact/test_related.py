"""retrieval/impact/related: imports, dependents and covering tests of a file or a symbol."""

import json
import subprocess
import sys

import pytest

from repoctx.errors import ToolError
from repoctx.retrieval.impact.related import related

NAMES = ["tests.test_cart.TestCart", "tests.test_cart.TestCart.test_total",
         "tests.test_cart.test_checkout"]
TESTS = [{"path": "tests/test_cart.py", "names": NAMES, "reason": "imports", "distance": 0}]


def test_related_of_a_file(shop):
    got = related(shop, path="shop/cart.py")
    assert got["imports"] == [{"module": "shop.pricing", "path": "shop/pricing.py"}]
    assert [d["symbol"] for d in got["dependents"]] == [
        "shop.cart.checkout", "tests.test_cart.TestCart.test_total",
        "tests.test_cart.test_checkout"]
    assert got["tests"] == TESTS


def test_related_of_a_symbol(shop):
    simple = related(shop, symbol="Cart")
    assert simple["path"] is None and simple["imports"] == []
    assert simple["tests"] == TESTS  # the name stands for shop.cart.Cart
    full = related(shop, symbol="shop.pricing.Discount")
    assert full["path"] == "shop/pricing.py"
    assert [d["symbol"] for d in full["dependents"]] == ["shop.cart.Cart.total",
                                                        "shop.cart.checkout"]
    # tests referring to Cart.total and checkout, which call Discount
    assert full["tests"] == [{"path": "tests/test_cart.py", "names": [
        "tests.test_cart.TestCart.test_total", "tests.test_cart.test_checkout"],
        "reason": "calls", "distance": 1}]


def test_exactly_one_of_path_or_symbol(shop):
    with pytest.raises(ToolError, match="exactly one"):
        related(shop)
    with pytest.raises(ToolError, match="exactly one"):
        related(shop, path="shop/cart.py", symbol="Cart")
    with pytest.raises(ToolError, match="'nope.py' is not in the index"):
        related(shop, path="nope.py")


def test_k_bounds_each_list_and_omitted_counts_the_rest(pkg_ws):
    whole = related(pkg_ws, symbol="Blueprint", k=200)
    assert len(whole["dependents"]) == 7
    assert [(t["path"], len(t["names"])) for t in whole["tests"]] == [("tests/test_bp.py", 6)]
    assert whole["omitted"] == {"imports": 0, "dependents": 0, "tests": 0}
    two = related(pkg_ws, symbol="Blueprint", k=2)
    assert two["dependents"] == whole["dependents"][:2]
    assert two["dependents"][0]["symbol"] == "pkg.sub.mod.build"  # code before tests
    assert two["omitted"] == {"imports": 0, "dependents": 5, "tests": 0}
    one = related(pkg_ws, path="pkg/sub/mod.py", k=1)
    assert len(one["imports"]) == 1 and one["omitted"]["imports"] == 2


def test_a_dotted_symbol_the_store_does_not_declare_is_an_error(pkg_ws):
    with pytest.raises(ToolError, match=r"symbol: 'pkg.bp.Blueprint.Blueprint' is not in the "
                                        r"index; did you mean 'pkg.bp.Blueprint'"):
        related(pkg_ws, symbol="pkg.bp.Blueprint.Blueprint")
    with pytest.raises(ToolError, match="k: must be an integer"):
        related(pkg_ws, symbol="Blueprint", k="3")


def test_related_through_the_cli(pkg_ws):
    """The defects were seen through ``repoctx call``: the tool's schema takes ``k``."""
    cli = [sys.executable, "-m", "repoctx", "call", "repocontext_related"]
    done = subprocess.run([*cli, '{"path": "pkg/sub/mod.py", "k": 1}', "--path",
                           str(pkg_ws.root)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["imports"] == [{"module": "..bp", "path": "pkg/bp.py"}]
    assert answer["omitted"] == {"imports": 2, "dependents": 0, "tests": 0}
    done = subprocess.run([*cli, '{"symbol": "pkg.bp.Blueprint.Blueprint"}', "--path",
                           str(pkg_ws.root)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "'pkg.bp.Blueprint.Blueprint' is not in the index" in done.stdout + done.stderr
