"""A small repository indexed, exported and search-indexed, for the search tests."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from repoctx import open_store
from repoctx.contextpull import export_store
from repoctx.reconcile import reconcile_pass
from repoctx.retrieval import Workspace
from repoctx.retrieval.index.tables import build_search_index

FILES = {
    "shop/cart.py": '''"""Shopping cart."""

MAX_ITEMS = 50


class ShoppingCart:
    """A cart of items."""

    def __init__(self) -> None:
        self.items: dict[str, int] = {}

    def add_item(self, sku: str, qty: int = 1) -> None:
        """Add ``qty`` of ``sku``; the cart refuses more than MAX_ITEMS."""
        self.items[sku] = self.items.get(sku, 0) + qty

    def total_price(self) -> float:
        """The price of everything in the cart."""
        return float(sum(self.items.values()))
''',
    "shop/http.py": '''"""HTTP helpers."""


class HTTPResponse:
    """A response with a status code and a body."""

    def __init__(self, status_code: int, body: str) -> None:
        self.status_code = status_code
        self.body = body


def render_template_response(name: str) -> HTTPResponse:
    """Render the template ``name`` into a response."""
    return HTTPResponse(200, name)
''',
    "shop/savepoints.py": '''"""Nested atomic blocks."""


def create_savepoint(connection):
    """Create and release a savepoint when atomic blocks are nested."""
    return connection.savepoint()
''',
    "tests/test_cart.py": '''"""Tests of the cart."""

from shop.cart import ShoppingCart


def test_add_item_to_cart_total_price():
    cart = ShoppingCart()
    cart.add_item("apple")
    assert cart.total_price() == 1.0
''',
    "docs/guide.md": """# Shop guide

Intro text for the shop.

## Discounts

A discount lowers the total price of a shopping cart when the customer checks out.
Coupons are applied before taxes. The refund window is thirty days after delivery.
""",
}


def write_repo(root: Path) -> None:
    """Write ``FILES`` under ``root``."""
    for path, text in FILES.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def index_repo(root: Path, store_dir: Path, export: Path) -> Workspace:
    """Index ``root`` into a store, export it, build the search tables; a workspace."""
    store = open_store(root, repo_id="shop", store_dir=store_dir)
    reconcile_pass(store, root)
    export_store(store, root, export)
    build_tables(export)
    return Workspace(store, root.resolve(), export)


def build_tables(export: Path) -> None:
    """Build the search tables into the export file ``export``."""
    conn = sqlite3.connect(export)
    try:
        build_search_index(conn)
        conn.commit()
    finally:
        conn.close()


def indexed_export(base: Path) -> Path:
    """The search repository written, indexed and exported under ``base``; the export."""
    write_repo(base / "repo")
    index_repo(base / "repo", base / "store", base / "export.sqlite").store.close()
    return base / "export.sqlite"
