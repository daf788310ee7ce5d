"""Units of one file: whole bodies, symbol slices, outlines, paths; stale files."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from repoctx.retrieval.bundle import units, wire
from repoctx.retrieval.bundle.expansion import Target
from repoctx.retrieval.bundle.receipts import FILE, OUTLINE, PATH, SLICE, receipt
from repoctx.retrieval.bundle.units import (
    load,
    outline_unit,
    path_unit,
    slice_units,
    whole_unit,
)
from repoctx.retrieval.bundle.wire import tokens_of
from repoctx.retrieval.tuning import TUNING
from tests.retrieval.context_repo import build

SLICED = replace(TUNING, bundle=replace(TUNING.bundle, cheap_max=0))
"""No file is cheap enough to go whole: every one is sliced."""


@pytest.fixture(scope="module")
def ws(cart_ws):
    return cart_ws


def source(ws, path, symbols=(), spans=()):
    return load(ws, Target(path, tuple(symbols), tuple(spans), ("t",)))


def test_unknown_files_have_no_source(ws):
    assert source(ws, "nope.py") is None


def test_whole_unit_is_the_body_and_creates_possession(ws):
    src = source(ws, "shop/cart.py")
    unit = whole_unit(src)
    assert unit.kind == FILE and unit.body["text"] == (ws.root / "shop/cart.py").read_text()
    assert unit.possession == f"shop/cart.py@{src.node.digest}"
    assert unit.receipt == receipt("shop", "shop/cart.py", src.node.digest, FILE, "")


def test_a_unit_is_counted_once_and_exactly(ws, monkeypatch):
    unit = whole_unit(source(ws, "shop/cart.py"))
    assert unit.counted.tokens == tokens_of(unit.body)
    monkeypatch.setattr(wire, "counted", None)  # a second use must not count again
    assert unit.counted.tokens == tokens_of(unit.body)


def test_cheap_file_slices_to_the_whole_body(ws):
    src = source(ws, "shop/cart.py", ["shop.cart.checkout"])
    units = slice_units(src, budget=src.node.tokens * 8)
    assert [u.kind for u in units] == [FILE]


def test_expensive_file_slices_to_its_symbols_in_line_order(ws):
    src = source(ws, "shop/pricing.py", ["shop.pricing.Discount.apply", "shop.pricing.Rule3"])
    units = slice_units(src, budget=1000)
    assert [u.kind for u in units] == [SLICE, SLICE]
    assert [u.key for u in units] == ["shop.pricing.Rule3", "shop.pricing.Discount.apply"]
    assert units[1].body["text"].lstrip().startswith("def apply")
    assert all(u.possession is None for u in units)
    lines = (ws.root / "shop/pricing.py").read_text().splitlines(keepends=True)
    start, end = units[0].body["lines"]
    assert units[0].body["text"] == "".join(lines[start - 1:end])


def test_nested_symbols_are_sent_once_and_slices_are_capped(ws, monkeypatch):
    src = source(ws, "shop/pricing.py", ["shop.pricing.Discount", "shop.pricing.Discount.apply"])
    assert [u.key for u in slice_units(src, budget=1000)] == ["shop.pricing.Discount"]
    many = [f"shop.pricing.Rule{i}" for i in range(20)]
    monkeypatch.setattr(ws, "tuning", SLICED)  # a large budget, and still not sent whole
    most = TUNING.bundle.max_slices
    assert len(slice_units(source(ws, "shop/pricing.py", many), budget=100_000)) == most


def test_a_files_slices_stay_within_its_share_of_the_budget(ws):
    many = [f"shop.pricing.Rule{i}" for i in range(6)]
    lean = slice_units(source(ws, "shop/pricing.py", many), budget=400)
    share = units.allowance(400) * units.CHARS_PER_TOKEN
    assert 1 <= len(lean) < 6
    assert lean[0].key == "shop.pricing.Rule0"  # the best ranked first, whole
    assert sum(len(u.body["text"]) for u in lean[1:]) + len(lean[0].body["text"]) <= max(
        share, len(lean[0].body["text"]))


def test_the_best_definition_goes_whole_even_over_the_share(ws):
    lean = slice_units(source(ws, "shop/pricing.py", ["shop.pricing.Discount"]), budget=60)
    assert [u.key for u in lean] == ["shop.pricing.Discount"]
    assert len(lean[0].body["text"]) > units.allowance(60) * units.CHARS_PER_TOKEN


def test_a_larger_budget_sends_more_of_the_first_files_whole(ws, monkeypatch):
    monkeypatch.setattr(ws, "tuning", SLICED)  # only a lead file may go whole
    kinds = {}
    for budget in (27_000, 50_000):
        third = source(ws, "shop/pricing.py", ["shop.pricing.Discount.apply"])
        third.place = 2
        kinds[budget] = {u.kind for u in slice_units(third, budget)}
    assert units.lead_files(27_000) == 2 and kinds[27_000] == {SLICE}
    assert units.lead_files(50_000) == 3 and kinds[50_000] == {FILE}


def test_line_spans_slice_too(ws):
    units = slice_units(source(ws, "README.md", spans=[(1, 2)]), budget=10)
    assert [(u.kind, u.key) for u in units] == [(SLICE, "L1-2")]


def test_outline_and_path_come_from_the_store(ws):
    src = source(ws, "shop/cart.py")
    outline = outline_unit(src)
    assert outline.kind == OUTLINE
    names = [s["fqName"] for s in outline.body["symbols"]]
    assert names[0] == "shop.cart.Cart" and "shop.cart.checkout" in names
    assert outline_unit(source(ws, "README.md")) is None
    assert path_unit(src).body == {"kind": PATH, "receipt": path_unit(src).receipt}


def test_stale_files_have_no_body_units(tmp_path):
    workspace = build(tmp_path / "repo")
    try:
        path = workspace.root / "shop/cart.py"
        path.write_text(path.read_text().replace("cart", "basket"))
        os.utime(path, ns=(1, 1))
        src = source(workspace, "shop/cart.py", ["shop.cart.checkout"])
        assert not src.fresh
        assert slice_units(src, 10_000) is None and whole_unit(src) is None
        assert outline_unit(src) is not None
    finally:
        workspace.close()
