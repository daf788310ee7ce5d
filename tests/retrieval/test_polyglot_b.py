"""Java, C, C++, C#, Ruby and PHP through the readers."""

from __future__ import annotations

import json

import pytest

from repoctx.retrieval.impact.changed import changed
from repoctx.retrieval.impact.outline import outline
from repoctx.retrieval.impact.related import related

from .small_repo import build

JAVA_PRICE = '''package com.shop.pricing;

/** Takes a percentage off. */
public class Pricing {
    public static int discount(int amount, int percent) {
        return amount - amount * percent / 100;
    }
}
'''
JAVA_TEST = '''package com.shop.pricing;

import com.shop.pricing.Pricing;
import org.junit.jupiter.api.Test;

class PricingTest {
    @Test
    void discountsTenPercent() {
        assertEquals(90, Pricing.discount(100, 10));
    }
}
'''
C_UTIL_H = "int clamp(int value, int low, int high);\n"
C_UTIL = '#include "util.h"\n\nint clamp(int value, int low, int high) {\n  return value;\n}\n'
C_MAIN = '#include "util.h"\n\nint main(void) { return clamp(1, 0, 2); }\n'
CPP_BOX = '''namespace shop {
class Box {
 public:
  int weight() const { return 1; }
};
}
'''
CS_LEDGER = '''namespace Shop.Ledger
{
    public class Book { public int Total() => 0; }
}
'''
CS_APP = '''using Shop.Ledger;

namespace Shop.App
{
    public class Program { static void Main() { new Book().Total(); } }
}
'''
RB_CART = "require_relative 'item'\n\nclass Cart\n  def add(item)\n    item\n  end\nend\n"
RB_ITEM = "class Item\nend\n"
PHP_COMPOSER = json.dumps({"autoload": {"psr-4": {"Shop\\": "src/"}}})
PHP_ORDER = '''<?php
namespace Shop;

use Shop\\Money\\Price;

class Order { public function total(): Price { return new Price(); } }
'''
PHP_PRICE = "<?php\nnamespace Shop\\Money;\n\nclass Price {}\n"
FILES = {
    "java/src/main/java/com/shop/pricing/Pricing.java": JAVA_PRICE,
    "java/src/test/java/com/shop/pricing/PricingTest.java": JAVA_TEST,
    "c/util.h": C_UTIL_H, "c/util.c": C_UTIL, "c/main.c": C_MAIN, "cpp/box.cpp": CPP_BOX,
    "cs/Shop.Ledger/Book.cs": CS_LEDGER, "cs/Shop.App/Program.cs": CS_APP,
    "rb/cart.rb": RB_CART, "rb/item.rb": RB_ITEM,
    "composer.json": PHP_COMPOSER, "src/Order.php": PHP_ORDER, "src/Money/Price.php": PHP_PRICE,
}


@pytest.fixture
def poly(tmp_path):
    ws = build(tmp_path, FILES, "polyb")
    yield ws
    ws.close()


def test_a_change_to_a_java_method_lists_its_junit_test(poly):
    path = poly.root / "java/src/main/java/com/shop/pricing/Pricing.java"
    path.write_text(JAVA_PRICE.replace("return amount", "percent = Math.min(percent, 100);\n"
                                                        "        return amount"))
    got = changed(poly)
    assert "com.shop.pricing.Pricing.discount" in {s["fqName"] for s in got["changedSymbols"]}
    assert [(t["path"], t["reason"]) for t in got["tests"]] == [
        ("java/src/test/java/com/shop/pricing/PricingTest.java", "imports")]
    assert "com.shop.pricing.PricingTest.discountsTenPercent" in got["tests"][0]["names"]


def test_imports_of_each_language_resolve_to_repository_files(poly):
    def imports(path):
        return {(i["module"], i["path"]) for i in related(poly, path=path)["imports"]}

    assert ("util.h", "c/util.h") in imports("c/main.c")
    assert ("Shop.Ledger", "cs/Shop.Ledger/Book.cs") in imports("cs/Shop.App/Program.cs")
    assert ("./item", "rb/item.rb") in imports("rb/cart.rb")
    assert ("Shop\\Money\\Price", "src/Money/Price.php") in imports("src/Order.php")
    assert ("com.shop.pricing.Pricing", "java/src/main/java/com/shop/pricing/Pricing.java") \
        in imports("java/src/test/java/com/shop/pricing/PricingTest.java")


def test_outline_lists_definitions_in_each_languages_convention(poly):
    def names(path):
        return {s["fqName"] for s in outline(poly, path)["symbols"]}

    assert names("cpp/box.cpp") == {"shop::Box", "shop::Box::weight"}
    assert names("cs/Shop.Ledger/Book.cs") == {"Shop.Ledger.Book", "Shop.Ledger.Book.Total"}
    assert names("rb/cart.rb") == {"Cart", "Cart#add"}
    assert names("src/Order.php") == {"Shop\\Order", "Shop\\Order::total"}

