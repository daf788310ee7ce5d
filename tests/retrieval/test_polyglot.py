"""A small polyglot repository: Go, TypeScript and Rust through every reader."""

from __future__ import annotations

import pytest

from repoctx.retrieval.bundle.context import context
from repoctx.retrieval.impact.changed import changed
from repoctx.retrieval.impact.outline import outline
from repoctx.retrieval.impact.related import related

from .small_repo import build

GO_MOD = "module example.com/shop\n\ngo 1.22\n"
GO_PRICE = '''package pricing

// Discount takes a percentage off an amount.
func Discount(amount int, percent int) int {
	return amount - amount*percent/100
}
'''
GO_PRICE_TEST = '''package pricing

import "testing"

func TestDiscount(t *testing.T) {
	if Discount(100, 10) != 90 {
		t.Fatal("wrong")
	}
}
'''
GO_MAIN = '''package main

import "example.com/shop/pricing"

func main() {
	println(pricing.Discount(1, 2))
}
'''
TS_BUTTON = '''/** A clickable button. */
export function PriceButton(props: { label: string }) {
  return <button>{props.label}</button>;
}
'''
TS_PAGE = '''import { PriceButton } from "./PriceButton";

export function CheckoutPage() {
  return <PriceButton label="Pay" />;
}
'''
RUST_LIB = '''mod ledger;

pub use crate::ledger::Ledger;
'''
RUST_LEDGER = '''/// An append-only list of entries.
pub struct Ledger {
    entries: Vec<i64>,
}

impl Ledger {
    /// Reconcile the ledger balance against the bank statement total.
    pub fn reconcile_balance(&self, statement: i64) -> bool {
        let total: i64 = self.entries.iter().sum();
        let difference = total - statement;
        difference == 0
    }
}
'''
FILES = {
    "go.mod": GO_MOD, "pricing/pricing.go": GO_PRICE, "pricing/pricing_test.go": GO_PRICE_TEST,
    "cmd/shop/main.go": GO_MAIN, "web/PriceButton.tsx": TS_BUTTON,
    "web/CheckoutPage.tsx": TS_PAGE, "ledger/src/lib.rs": RUST_LIB,
    "ledger/src/ledger.rs": RUST_LEDGER, "README.md": "# Shop\n\nA polyglot shop.\n",
}


@pytest.fixture
def poly(tmp_path):
    ws = build(tmp_path, FILES, "poly")
    yield ws
    ws.close()


def test_a_change_to_a_go_function_lists_its_go_test(poly):
    path = poly.root / "pricing/pricing.go"
    path.write_text(GO_PRICE.replace("\treturn", "\tpercent = min(percent, 100)\n\treturn"))
    got = changed(poly)
    assert got["updated"] == ["pricing/pricing.go"]
    assert [s["fqName"] for s in got["changedSymbols"]] == ["pricing.Discount"]
    # a Go test in the package's own directory needs no import
    assert [(t["path"], t["names"], t["reason"]) for t in got["tests"]] == [
        ("pricing/pricing_test.go", ["pricing.TestDiscount"], "imports")]
    assert "cmd/shop.main" in {d["symbol"] for d in got["dependents"]}


def test_a_ts_components_dependents_and_imports_are_found(poly):
    got = related(poly, symbol="web/PriceButton.PriceButton")
    assert "web/CheckoutPage.CheckoutPage" in {d["symbol"] for d in got["dependents"]}
    page = related(poly, path="web/CheckoutPage.tsx")
    assert page["imports"] == [{"module": "./PriceButton", "path": "web/PriceButton.tsx"}]
    go = related(poly, path="cmd/shop/main.go")
    assert go["imports"] == [{"module": "example.com/shop/pricing",
                              "path": "pricing/pricing.go"}]
    rust = related(poly, path="ledger/src/lib.rs")
    assert {"module": "mod ledger", "path": "ledger/src/ledger.rs"} in rust["imports"]


def test_outline_lists_definitions_of_every_language(poly):
    names = {s["fqName"] for s in outline(poly, "ledger/src/ledger.rs")["symbols"]}
    assert {"crate::ledger::Ledger", "crate::ledger::Ledger::reconcile_balance"} <= names


def test_a_context_bundle_about_a_rust_function_carries_it_whole(poly):
    response = context(poly, "reconcile_balance returns false when the ledger matches "
                             "the statement", responseBudgetTokens=4000)
    texts = [u.get("text", "") for e in response["entries"] if e["path"].endswith("ledger.rs")
             for u in e["units"]]
    body = "\n".join(RUST_LEDGER.splitlines()[7:12])  # the whole fn, signature to brace
    assert any(body in text for text in texts), texts


def test_search_finds_symbols_by_the_words_of_each_naming_habit(poly):
    from repoctx.retrieval.search.hits import search

    rust = search(poly, "reconcile balance")["hits"][0]
    assert rust["path"] == "ledger/src/ledger.rs"
    assert rust["symbol"] == "crate::ledger::Ledger::reconcile_balance"
    ts = search(poly, "price button")["hits"][0]
    assert (ts["path"], ts["symbol"]) == ("web/PriceButton.tsx", "web/PriceButton.PriceButton")
    go = search(poly, "Discount")["hits"][0]
    assert go["path"] == "pricing/pricing.go" and go["symbol"] == "pricing.Discount"


def test_contextpull_sections_follow_each_definition(poly):
    import sqlite3

    with sqlite3.connect(poly.export) as conn:
        rows = conn.execute("SELECT symbol, start_line, end_line FROM repoctx_sections "
                            "WHERE symbol IS NOT NULL ORDER BY id").fetchall()
    assert ("Ledger::reconcile_balance", 8, 13) in rows  # the impl's closing brace too
    assert ("Discount", 4, 6) in rows and ("PriceButton", 1, 4) in rows
