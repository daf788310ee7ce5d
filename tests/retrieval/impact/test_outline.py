"""retrieval/impact/outline: what a file declares, in line order, from the store alone."""

from repoctx.retrieval.impact.outline import outline


def test_outline_lists_declarations_in_line_order(shop):
    got = outline(shop, "shop/cart.py")
    assert got["exists"] and got["fresh"] is True
    assert got["fullReadTokenCount"] == shop.node("shop/cart.py").tokens > 0
    assert len(got["digest"]) == 64
    assert [(s["fqName"], s["kind"], s["startLine"], s["endLine"]) for s in got["symbols"]] == [
        ("shop.cart.Cart", "class", 6, 10), ("shop.cart.Cart.total", "method", 9, 10),
        ("shop.cart.checkout", "function", 13, 14)]
    assert got["symbols"][2]["signature"] == "def checkout(cart: Cart) -> float"


def test_a_file_without_symbols_and_an_unknown_path(shop):
    readme = outline(shop, "README.md")
    assert readme["exists"] and readme["symbols"] == []
    assert outline(shop, "nope.py") == {"path": "nope.py", "exists": False,
                                        "fullReadTokenCount": None, "digest": None,
                                        "symbols": []}
