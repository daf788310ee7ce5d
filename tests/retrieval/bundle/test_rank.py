"""Rankers for context bundles: search hits and ContextPull hits as candidates."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from repoctx.reconcile import FileNode
from repoctx.retrieval.bundle.rank import (
    CONTEXTPULL,
    QUERY_CHARS,
    SEARCH,
    Candidate,
    default_rank,
    hit_lines,
    reader_rank,
    search_query,
    search_rank,
    section_symbol,
)


@dataclass
class FakeWs:
    nodes: dict[str, FileNode]

    def node(self, path):
        return self.nodes.get(path)


FAKE = FakeWs({"pkg/mod.py": FileNode("pkg/mod.py", 1, 1, "d",
                                      symbols=("pkg.mod.Cart", "pkg.mod.Cart.total"))})


@pytest.fixture(scope="module")
def ws(cart_ws):
    return cart_ws


def test_heading_paths_map_to_declared_symbols():
    assert section_symbol(FAKE, "pkg/mod.py", "pkg/mod.py > Cart > total") == "pkg.mod.Cart.total"
    assert section_symbol(FAKE, "pkg/mod.py", "pkg/mod.py > Cart") == "pkg.mod.Cart"
    assert section_symbol(FAKE, "pkg/mod.py", "pkg/mod.py") is None
    assert section_symbol(FAKE, "pkg/mod.py", "pkg/mod.py > Gone") is None
    assert section_symbol(FAKE, "other.py", "other.py > Cart") is None


@pytest.mark.parametrize(("value", "expected"), [
    ([3, 9], (3, 9)), ((1, 1), (1, 1)), ([9, 3], None), ([0, 2], None), ([True, 2], None),
    ("1-2", None), (None, None), ([1, 2, 3], None)])
def test_hit_lines(value, expected):
    assert hit_lines(value) == expected


def test_search_hits_become_candidates():
    def fake_search(ws, query, k, brief):
        assert (query, k, brief) == ("task", 7, True)
        return {"hits": [{"path": "a.py", "symbol": "a.f", "lines": [2, 4]},
                         {"path": "b.md"}, {"symbol": "no-path"}]}

    got = search_rank(None, "task", 7, fake_search)
    assert got == [Candidate("a.py", "a.f", SEARCH, (2, 4)), Candidate("b.md", None, SEARCH)]


def test_reader_rank_finds_symbols_of_sections(ws):
    got = reader_rank(ws, "Discount", 5)
    assert got and all(c.reason == CONTEXTPULL for c in got)
    assert Candidate("shop/pricing.py", "shop.pricing.Discount", CONTEXTPULL) in got


def test_default_rank_answers_with_files_of_the_repo(ws):
    got = default_rank(ws, "checkout cart", 5)
    assert got and {c.path for c in got} <= {"shop/cart.py", "shop/pricing.py",
                                             "tests/test_cart.py", "README.md",
                                             "shop/__init__.py"}


def test_long_tasks_are_searched_whole_and_reduced_by_search(ws):
    task = "lorem ipsum dolor " * 400 + "\nthe checkout total is wrong"
    assert search_query(task) == task and len(search_query("x" * 200_000)) == QUERY_CHARS
    got = default_rank(ws, task, 5)
    assert "shop/cart.py" in [c.path for c in got[:3]]
