"""Grep against raw stores: literal substring semantics, truncation, bounded regex."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from repoctx.contextpull import Reader
from repoctx.contextpull.grep import literal_line
from repoctx.errors import ToolError

DOCS = {
    "a.md": [("A", "prose", "first line\nError TX-4501: gateway timeout\nTX-4501 again")],
    "b.md": [("B", "prose", "Le CAFÉ est bon\nle café aussi")],
    "c.md": [("C", "prose", "a" * 3000 + "!")] + [("C", "prose", f"line {i} tx") for i in range(5)],
}


@pytest.fixture
def reader(raw_store: Callable[..., Path]) -> Reader:
    with Reader(raw_store(DOCS)) as r:
        yield r


def test_substring_inside_token(reader: Reader) -> None:
    result = reader.grep("TX-45")
    assert result == {
        "matches": [{"id": "a.md#0", "doc": "a.md", "heading_path": "A",
                     "line": "Error TX-4501: gateway timeout"}],
        "truncated": False,
    }  # fmt: skip


def test_ascii_only_case_folding_like_sqlite_lower(reader: Reader) -> None:
    assert [m["line"] for m in reader.grep("café")["matches"]] == ["le café aussi"]
    assert [m["line"] for m in reader.grep("CAFÉ")["matches"]] == ["Le CAFÉ est bon"]
    assert [m["line"] for m in reader.grep("caf")["matches"]] == ["Le CAFÉ est bon"]


def test_one_match_per_section_in_id_order_and_truncated(reader: Reader) -> None:
    result = reader.grep("tx", limit=3)
    assert [m["id"] for m in result["matches"]] == ["a.md#0", "c.md#1", "c.md#2"]
    assert result["truncated"] is True
    assert reader.grep("tx", limit=6)["truncated"] is False


def test_path_filter(reader: Reader) -> None:
    assert [m["id"] for m in reader.grep("tx", in_=["a.md"])["matches"]] == ["a.md#0"]


def test_regex_mode(reader: Reader) -> None:
    result = reader.grep(r"tx-\d{4}:", regex=True)
    assert [m["line"] for m in result["matches"]] == ["Error TX-4501: gateway timeout"]
    with pytest.raises(ToolError, match="pattern"):
        reader.grep("(unclosed", regex=True)


def test_pattern_bounds(reader: Reader) -> None:
    with pytest.raises(ToolError, match="200"):
        reader.grep("x" * 201)
    with pytest.raises(ToolError):
        reader.grep("")


def test_catastrophic_regex_is_a_tool_error_within_a_second(reader: Reader) -> None:
    start = time.monotonic()
    with pytest.raises(ToolError, match="simplify"):
        reader.grep(r"(a|aa)+$", regex=True)
    assert time.monotonic() - start < 1.0


def test_literal_line_helper() -> None:
    assert literal_line("one\nTwo TX\nthree tx", "tx") == "Two TX"
