"""A small real repository indexed and exported, for the context-bundle tests."""

from __future__ import annotations

from pathlib import Path

from repoctx import open_store
from repoctx.contextpull import export_store
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.retrieval import Workspace

CART = '''"""Shopping cart."""

from shop.pricing import Discount


class Cart:
    """A cart of items."""

    def __init__(self) -> None:
        self.items: dict[str, int] = {}

    def add_item(self, sku: str, qty: int = 1) -> None:
        """Add ``qty`` of ``sku``."""
        self.items[sku] = self.items.get(sku, 0) + qty

    def total(self, discount: Discount | None = None) -> float:
        """The price of everything in the cart."""
        gross = float(sum(self.items.values()))
        return discount.apply(gross) if discount else gross


def checkout(cart: Cart) -> float:
    """Charge the cart."""
    return cart.total()
'''

PRICING = '"""Pricing rules."""\n\n' + "\n\n".join(
    f'class Rule{i}:\n    """Pricing rule number {i}."""\n\n'
    f"    def apply(self, amount: float) -> float:\n"
    f'        """Apply rule {i} to ``amount``."""\n'
    f"        return amount * {1 + i / 100:.2f}\n" for i in range(30)) + '''

class Discount:
    """A percentage off."""

    def __init__(self, percent: float) -> None:
        self.percent = percent

    def apply(self, amount: float) -> float:
        """The discounted amount."""
        return amount * (1 - self.percent / 100)
'''

TESTS = '''from shop.cart import Cart, checkout
from shop.pricing import Discount


class TestCart:
    def test_total(self):
        cart = Cart()
        cart.add_item("x", 2)
        assert cart.total() == 2.0


def test_checkout():
    assert checkout(Cart()) == 0.0


def test_discount():
    assert Discount(50).apply(10) == 5
'''

README = "# Shop\n\nA tiny shop: carts, discounts and checkout.\n\n## Pricing\n\n" + (
    "Rules are applied in order to compute the total of a cart. " * 20) + "\n"

FILES = {"shop/__init__.py": "", "shop/cart.py": CART, "shop/pricing.py": PRICING,
         "tests/test_cart.py": TESTS, "README.md": README}

WORDS = ("cart", "Cart", "total", "Cart.total", "checkout", "Discount", "apply", "rule",
         "pricing", "add_item", "sku", "shop", "readme", "order", "percent", "Rule7",
         "items", "zebra", "the", "fix", "TestCart", "test_checkout", "amount")


def write(root: Path, files: dict[str, str]) -> None:
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)


def build(root: Path, *, store_dir: Path | None = None, replica: str = "r1") -> Workspace:
    """Write the repository (if absent), index it and export it; the open workspace."""
    if not (root / "shop").exists():
        write(root, FILES)
    store = open_store(root, repo_id="shop", replica_id=replica, store_dir=store_dir)
    reconcile_pass(store, root, PassOptions(workers=1))
    export = store.path / "contextpull.sqlite"
    export_store(store, root, export)
    return Workspace(store, root.resolve(), export)
