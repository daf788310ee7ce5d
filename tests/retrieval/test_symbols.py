"""retrieval/symbols: where symbols live and who depends on or tests a name."""

from repoctx.retrieval import symbols as sy
from tests.retrieval.small_repo import index


def test_declarations_where_and_declared_in(shop):
    decls = sy.declarations(shop, "shop.cart.Cart")
    assert list(decls) == ["shop/cart.py"] and decls["shop/cart.py"].kind == "class"
    assert sy.declarations(shop, "shop.cart.Nope") == {}
    assert sy.where(shop, "shop.pricing.Discount") == "shop/pricing.py"
    assert sy.where(shop, "shop.nope") is None
    got = sy.declared_in(shop, "shop/cart.py",
                         ("shop.cart.checkout", "shop.cart.Cart", "shop.pricing.Discount"))
    assert [fq for fq, _ in got] == ["shop.cart.Cart", "shop.cart.checkout"]


def test_reverse_looks_tests_up_under_the_snake_form_too(shop):
    # test_checkout covers "checkout"; TestCart covers "Cart"
    assert {e["symbol"] for e in sy.reverse(shop, "checkout", "tests")} == {
        "tests.test_cart.test_checkout"}
    assert "tests.test_cart.TestCart" in {e["symbol"] for e in sy.reverse(shop, "Cart", "tests")}
    assert sy.reverse(shop, "Nothing", "dependents") == []


def test_reverse_all_dedups_in_symbol_order(shop, monkeypatch):
    got = sy.reverse_all(shop, {"Cart", "checkout"}, "dependents")
    names = [e["symbol"] for e in got]
    assert names == sorted(set(names)) and "tests.test_cart.test_checkout" in names
    monkeypatch.setattr(sy, "LOOKUP_LIMIT", 1)
    assert len(sy.reverse(shop, "Cart", "dependents")) == 1


def test_named_lists_the_definitions_of_a_simple_name(shop):
    assert sy.named(shop, "total", 5) == [("shop.cart.Cart.total", "shop/cart.py")]
    assert sy.named(shop, "Nothing", 5) == []
    assert len(sy.named(shop, "apply", 0)) == 0


def test_simple_name():
    assert sy.simple_name("a.b.C") == "C" and sy.simple_name("C") == "C"


def test_declarations_kept_between_calls_follow_a_new_index(fresh_shop):
    before = sy.declarations(fresh_shop, "shop.cart.checkout")["shop/cart.py"]
    assert sy.declarations(fresh_shop, "shop.cart.checkout") is sy.declarations(
        fresh_shop, "shop.cart.checkout")  # decoded once, then kept
    path = fresh_shop.root / "shop" / "cart.py"
    path.write_text("# moved down\n\n" + path.read_text())
    index(fresh_shop.store, fresh_shop.root)
    after = sy.declarations(fresh_shop, "shop.cart.checkout")["shop/cart.py"]
    assert after.start_line == before.start_line + 2
