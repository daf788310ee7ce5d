"""Packing: levels, reuse, budgets, and the smallest admitting budget."""

from __future__ import annotations

from dataclasses import replace

import pytest

from repoctx.retrieval.bundle import packing, wire
from repoctx.retrieval.bundle.expansion import Target
from repoctx.retrieval.bundle.packing import Plan, pack, smallest_budget
from repoctx.retrieval.bundle.units import load
from repoctx.retrieval.bundle.wire import dumps
from repoctx.retrieval.tuning import TUNING
from repoctx.tokenizer import count_tokens

SLICED = replace(TUNING, bundle=replace(TUNING.bundle, cheap_max=0))
"""No file is cheap enough to go whole: every one is sliced."""

PATHS = ("shop/cart.py", "shop/pricing.py", "tests/test_cart.py", "README.md")


@pytest.fixture(scope="module")
def ws(cart_ws):
    return cart_ws


def plan(ws, detail="auto", known=frozenset(), possessed=frozenset()):
    sources = [load(ws, Target(p, (), (), ("t",))) for p in PATHS]
    return Plan(sources, detail, known, possessed, {"retrievalPath": "test"})


def test_smallest_budget():
    assert smallest_budget(lambda b: b >= 37, 1, 100) == 37
    assert smallest_budget(lambda b: b >= 1, 1, 100) == 1
    assert smallest_budget(lambda b: False, 1, 100) is None


@pytest.mark.parametrize("budget", [1, 40, 90, 150, 400, 1200, 5000])
def test_pack_stays_within_the_budget_and_counts_exactly(ws, budget):
    packed = pack(plan(ws), budget)
    assert packed.text == dumps(packed.response)
    assert packed.response["responseTokens"] == count_tokens(packed.text)
    assert packed.response["responseTokens"] <= budget or not packed.picks
    assert len(packed.entries) + packed.omitted == len(PATHS)


def test_auto_degrades_per_candidate_to_what_fits(ws):
    levels = {e["detail"] for e in pack(plan(ws), 700).entries}
    assert len(levels) >= 2  # some files whole, others outlined or named
    assert {e["detail"] for e in pack(plan(ws, "paths"), 5000).entries} == {"paths"}


def test_known_receipts_are_reused_without_text(ws):
    first = pack(plan(ws), 5000)
    known = frozenset(u.receipt for p in first.picks for u in p.delivered)
    second = pack(plan(ws, known=known), 5000)
    assert second.entries == []
    assert {r["receipt"] for r in second.response["reused"]} == known


def test_possessed_whole_files_are_reused(ws):
    src = load(ws, Target("shop/cart.py"))
    claim = f"shop/cart.py@{src.node.digest}"
    packed = pack(plan(ws, possessed=frozenset({claim})), 5000)
    assert "shop/cart.py" not in {e["path"] for e in packed.entries}
    assert [r["kind"] for r in packed.response["reused"]] == ["file"]


def test_first_entry_stops_early(ws):
    assert len(pack(plan(ws), 5000, first_entry=True).entries) == 1


@pytest.mark.parametrize("detail", ["auto", "outline"])
def test_the_outline_floor_skips_only_outlines_that_could_not_fit(ws, monkeypatch, detail):
    built = []
    real = packing.outline_unit
    monkeypatch.setattr(packing, "outline_unit", lambda src: built.append(src) or real(src))
    floored = [pack(plan(ws, detail), budget).response for budget in range(20, 900, 40)]
    with_floor = len(built)
    monkeypatch.setattr(packing, "OUTLINE_FLOOR", 0)
    assert [pack(plan(ws, detail), budget).response for budget in range(20, 900, 40)] == floored
    assert with_floor < len(built) - with_floor  # outlines that could not fit were not built


def test_no_text_encoded_while_packing_holds_two_bodies(ws, monkeypatch):
    encoded = []
    real = wire.count_tokens
    monkeypatch.setattr(wire, "count_tokens", lambda text: encoded.append(text) or real(text))
    monkeypatch.setattr(wire, "_counts", {})  # nothing remembered from other tests
    packed = pack(plan(ws), 5000)
    bodies = sum(len(e["units"]) for e in packed.entries)
    assert bodies >= 2 and all(text.count('"text":') <= 1 for text in encoded)
    assert sum(map(len, encoded)) < 1.2 * len(packed.text)


def test_a_file_whose_slices_do_not_fit_sends_its_best_definition_alone(ws, monkeypatch):
    from repoctx.retrieval.bundle import units

    monkeypatch.setattr(ws, "tuning", SLICED)  # sliced, never whole
    rules = tuple(f"shop.pricing.Rule{i}" for i in range(6))
    lean_seen = False
    for budget in range(150, 3000, 10):
        src = load(ws, Target("shop/pricing.py", rules, (), ("t",)))
        full = units.slice_units(src, budget)
        first = load(ws, Target("shop/cart.py", (), (), ("t",)))  # takes most of the room
        packed = pack(Plan([first, src], "auto", fields={"retrievalPath": "test"}), budget)
        assert packed.response["responseTokens"] <= budget or not packed.picks
        entry = next((e for e in packed.entries if e["path"] == "shop/pricing.py"), None)
        if entry and entry["detail"] == "slices" and len(entry["units"]) < len(full):
            assert [u["symbol"] for u in entry["units"]] == ["shop.pricing.Rule0"]
            lean_seen = True
    assert lean_seen


def test_a_lean_file_sends_its_best_unit_alone(ws, monkeypatch):

    monkeypatch.setattr(ws, "tuning", SLICED)  # sliced, never whole
    rules = tuple(f"shop.pricing.Rule{i}" for i in range(6))

    def entry(lean: bool) -> dict:
        src = load(ws, Target("shop/pricing.py", rules, (), ("t",)))
        src.lean = lean
        packed = pack(Plan([src], "auto", fields={"retrievalPath": "test"}), 20_000)
        return packed.entries[0]

    assert len(entry(lean=False)["units"]) > 1
    lean = entry(lean=True)
    assert lean["detail"] == "slices"
    assert [u["symbol"] for u in lean["units"]] == ["shop.pricing.Rule0"]
