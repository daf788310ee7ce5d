"""A four-file repository indexed and exported with repoctx's extras, for the read tools."""

from __future__ import annotations

from pathlib import Path

from repoctx import open_store
from repoctx.contextpull import export_store
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.retrieval import EXPORT_NAME, Workspace, export_extras
from tests.reconcile.helpers import write

CART = '''"""Shopping cart."""

from shop.pricing import Discount


class Cart:
    """A cart of items."""

    def total(self, discount: Discount) -> float:
        return discount.apply(1.0)


def checkout(cart: Cart) -> float:
    return cart.total(Discount())
'''

PRICING = '''"""Pricing."""


class Discount:
    """A percentage off."""

    def apply(self, amount: float) -> float:
        return amount
'''

TESTS = '''from shop.cart import Cart, checkout


class TestCart:
    def test_total(self):
        assert Cart()


def test_checkout():
    assert checkout(Cart()) == 1.0
'''

FILES = {"shop/__init__.py": "", "shop/cart.py": CART, "shop/pricing.py": PRICING,
         "tests/test_cart.py": TESTS, "README.md": "# Shop\n\nCarts and discounts.\n"}


def index(store, root: Path) -> Path:
    """Reconcile ``root`` into ``store`` and export it; the export's path."""
    reconcile_pass(store, root, PassOptions(workers=1))
    out = store.path / EXPORT_NAME
    export_store(store, root, out, previous=out if out.exists() else None,
                 finalize=export_extras(store))
    return out


def build(root: Path, files: dict[str, str] = FILES, repo_id: str = "shop") -> Workspace:
    """Write `files` (the shop by default), index and export them; the open workspace
    (close it)."""
    write(root, files)
    store = open_store(root, repo_id=repo_id, replica_id="r1")
    return Workspace(store, root.resolve(), index(store, root))
