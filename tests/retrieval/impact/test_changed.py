"""retrieval/impact/changed: drift of the working tree, the symbols it touches, tests to run."""

import os

from repoctx.retrieval.impact.changed import changed


def test_an_unchanged_tree_reports_nothing(shop):
    assert changed(shop) == {"added": [], "updated": [], "removed": [], "changedSymbols": [],
                             "dependents": [], "tests": []}


def test_edits_additions_and_removals(fresh_shop):
    root = fresh_shop.root
    cart = (root / "shop/cart.py").read_text()
    (root / "shop/cart.py").write_text(cart.replace("return cart.total(Discount())",
                                                    "return cart.total(Discount()) + bonus()"))
    (root / "shop/extra.py").write_text("def extra():\n    return 1\n")
    (root / "logo.png").write_bytes(b"\x89PNG\x00\x00")
    (root / "shop/pricing.py").unlink()
    got = changed(fresh_shop)
    assert got["added"] == ["shop/extra.py"]  # the binary file is left out
    assert got["updated"] == ["shop/cart.py"] and got["removed"] == ["shop/pricing.py"]
    assert {(s["fqName"], s["change"]) for s in got["changedSymbols"]} == {
        ("shop.cart.checkout", "modified"), ("shop.extra.extra", "added"),
        ("shop.pricing.Discount", "removed"), ("shop.pricing.Discount.apply", "removed")}
    assert "tests.test_cart.test_checkout" in {t["symbol"] for t in got["tests"]}
    matches = {d["symbol"]: d["match"] for d in got["dependents"]}
    assert matches["shop.cart.Cart.total"] == "resolved"  # `from shop.pricing import Discount`
    assert [d["match"] for d in got["dependents"]] == sorted(
        matches.values(), key=lambda match: match != "resolved")  # resolved first


def test_a_touch_is_not_a_change_and_paths_limit_the_answer(fresh_shop):
    root = fresh_shop.root
    os.utime(root / "shop/cart.py", ns=(1, 1))  # stat differs, bytes do not
    (root / "README.md").write_text("# Shop\n\nNew words.\n")
    assert changed(fresh_shop)["updated"] == ["README.md"]
    assert changed(fresh_shop, ["shop"])["updated"] == []
    assert changed(fresh_shop, ["README.md"])["updated"] == ["README.md"]
