"""retrieval/impact/changed: drift of the working tree, the symbols it touches, tests to run."""

import os

import pytest

from repoctx import open_store
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.retrieval import Workspace
from repoctx.retrieval.impact.changed import changed
from tests.reconcile.helpers import as_older_version, write
from tests.retrieval.small_repo import build

CALC = '''"""Calculations."""


def price(x):
    return x * 2


def tax(x):
    return x / 10


class Basket:
    """A basket."""

    def total(self, items):
        return sum(items)

    @staticmethod
    def empty():
        return []
'''


def test_an_unchanged_tree_reports_nothing(shop):
    assert changed(shop) == {"added": [], "updated": [], "removed": [], "changedSymbols": [],
                             "containingChanges": [], "dependents": [], "tests": [],
                             "coverage": {"status": "none", "measuredAt": None,
                                          "staleFiles": []}}


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
    # checkout is referred to by a test of a file importing its module
    assert got["tests"] == [{"path": "tests/test_cart.py", "names": [
        "tests.test_cart.test_checkout"], "reason": "imports", "distance": 0}]
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


@pytest.fixture
def calc(tmp_path):
    ws = build(tmp_path, {"pkg/__init__.py": "", "pkg/calc.py": CALC})
    yield ws
    ws.close()


def edit(ws, text):
    (ws.root / "pkg/calc.py").write_text(text)
    got = changed(ws)
    assert got["updated"] == ["pkg/calc.py"]
    return ({(s["fqName"], s["change"]) for s in got["changedSymbols"]},
            [c["fqName"] for c in got["containingChanges"]])


def test_a_comment_on_top_moves_every_definition_and_changes_none(calc):
    assert edit(calc, "# Copyright.\n" + CALC) == (set(), [])


def test_a_body_edit_is_that_definition_modified_only(calc):
    assert edit(calc, CALC.replace("return x * 2", "return x * 3")) == (
        {("pkg.calc.price", "modified")}, [])


def test_a_method_edit_modifies_the_method_and_contains_the_class(calc):
    assert edit(calc, CALC.replace("sum(items)", "sum(items, 0)")) == (
        {("pkg.calc.Basket.total", "modified")}, ["pkg.calc.Basket"])


def test_a_decorator_edit_is_a_modification(calc):
    assert edit(calc, CALC.replace("@staticmethod", "@classmethod")) == (
        {("pkg.calc.Basket.empty", "modified")}, ["pkg.calc.Basket"])


def test_an_added_or_removed_method_leaves_its_class_unmodified(calc):
    more = CALC + "\n    def size(self):\n        return 0\n"
    assert edit(calc, more) == ({("pkg.calc.Basket.size", "added")}, ["pkg.calc.Basket"])
    fewer = CALC.replace("    def total(self, items):\n        return sum(items)\n\n", "")
    assert edit(calc, fewer) == ({("pkg.calc.Basket.total", "removed")}, ["pkg.calc.Basket"])


def test_reindenting_the_whole_file_consistently_changes_nothing(calc):
    indented = "if True:\n" + "".join(f"    {line}" if line.strip() else line
                                      for line in CALC.splitlines(keepends=True))
    assert edit(calc, indented) == (set(), [])


def test_a_change_of_relative_indentation_is_a_modification(calc):
    assert edit(calc, CALC.replace("    return x / 10", "    return (\n        x / 10)")) == (
        {("pkg.calc.tax", "modified")}, [])


def test_an_older_store_gets_its_digests_from_the_stored_bodies(calc):
    as_older_version(calc.store)
    assert edit(calc, "# Copyright.\n" + CALC) == (set(), [])
    assert edit(calc, CALC.replace("return x * 2", "return x * 3")) == (
        {("pkg.calc.price", "modified")}, [])


def test_an_older_store_without_bodies_compares_whole_declarations(tmp_path):
    write(tmp_path, {"pkg/calc.py": CALC})
    store = open_store(tmp_path, repo_id="calc", replica_id="r1")
    reconcile_pass(store, tmp_path, PassOptions(workers=1, content=False))
    as_older_version(store)
    ws = Workspace(store, tmp_path.resolve(), store.path / "none.sqlite")
    try:
        moved, _ = edit(ws, "# Copyright.\n" + CALC)
        assert ("pkg.calc.tax", "modified") in moved  # its span moved: compared whole
    finally:
        ws.close()
