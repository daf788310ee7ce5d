"""Cross-reference expansion: named definitions, their tests and dependents; grouping."""

from __future__ import annotations

import pytest

from repoctx.reconcile.nodes import xref_record
from repoctx.retrieval.bundle.expansion import (
    Target,
    definitions,
    expand,
    gather,
    reverse,
    task_names,
)
from repoctx.retrieval.bundle.rank import Candidate
from repoctx.retrieval.tuning import TUNING

LEADING_DEFINITIONS = TUNING.bundle.leading_definitions
LEADING_HITS = TUNING.bundle.leading_hits
MAX_NAMES = TUNING.text.max_names
PER_NAME = TUNING.bundle.expansions_per_name


@pytest.fixture(scope="module")
def ws(cart_ws):
    return cart_ws


def test_task_names_put_code_looking_words_first_and_drop_stopwords():
    assert task_names("Fix the total of Cart.total when add_item is called") == [
        "Cart.total", "add_item", "total", "called"]
    assert len(task_names(" ".join(f"word{i}" for i in range(30)))) == MAX_NAMES
    assert task_names("a an to") == []
    assert task_names("every file should get each fix") == []  # one stop-word list


def test_definitions_of_dotted_and_simple_names(ws):
    assert definitions(ws, "shop.cart.checkout") == [
        Candidate("shop/cart.py", "shop.cart.checkout", "definition:shop.cart.checkout")]
    found = definitions(ws, "Cart.total")
    assert [c.symbol for c in found] == ["shop.cart.Cart.total"]
    assert definitions(ws, "nothing_named_so") == []


def test_reverse_finds_tests_under_the_name_and_its_snake_form(ws):
    tests = reverse(ws, "checkout", xref_record.TESTS)
    assert {c.symbol for c in tests} >= {"tests.test_cart.test_checkout"}
    assert all(c.path == "tests/test_cart.py" for c in tests)
    deps = reverse(ws, "Discount", xref_record.DEPENDENTS)
    assert "shop.cart.Cart.total" in {c.symbol for c in deps}
    assert len(reverse(ws, "Cart", xref_record.DEPENDENTS, limit=1)) == 1


def test_expand_puts_search_first_hit_first_then_definitions_then_tests(ws):
    base = [Candidate("README.md", None, "search")]
    got = expand(ws, "Discount.apply", base, top=10)
    assert got[0] == base[0]  # search's first file is the likeliest edit
    assert got[1].symbol == "shop.pricing.Discount.apply"
    assert any(c.reason.startswith("test:") for c in got)


def test_the_search_first_half_comes_before_later_definitions(ws):
    base = [Candidate("README.md", None, "search"), Candidate("docs/x.md", None, "search")]
    got = expand(ws, "Discount apply", base, top=4)
    defs = [i for i, c in enumerate(got) if c.reason.startswith("definition:")]
    assert len(defs) > LEADING_DEFINITIONS
    assert got[:LEADING_HITS] == base[:LEADING_HITS]
    assert defs[:LEADING_DEFINITIONS] == [LEADING_HITS + i for i in range(LEADING_DEFINITIONS)]
    after = LEADING_HITS + LEADING_DEFINITIONS
    assert got[after] == base[LEADING_HITS] and defs[LEADING_DEFINITIONS] > after


def test_definitions_naming_more_of_the_task_win_the_per_name_cap(ws):
    got = expand(ws, "Discount apply", [], top=10)
    applies = [c.symbol for c in got if c.reason.startswith("definition:")
               and c.symbol.endswith(".apply")]
    assert applies[0] == "shop.pricing.Discount.apply"
    assert len(applies) <= PER_NAME


def test_gather_groups_per_file_in_first_seen_order():
    cands = [Candidate("a.py", "a.f", "x"), Candidate("b.py", None, "y", (1, 3)),
             Candidate("a.py", "a.g", "y"), Candidate("c.py", None, "z")]
    assert gather(cands, top=2) == [Target("a.py", ("a.f", "a.g"), (), ("x", "y")),
                                    Target("b.py", (), ((1, 3),), ("y",))]
