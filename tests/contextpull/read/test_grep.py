"""Grep against raw stores: literal substring semantics, truncation, bounded regex."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from repoctx import deadline
from repoctx.contextpull import Reader
from repoctx.contextpull.read import grep as grep_module
from repoctx.contextpull.read.grep import literal_line
from repoctx.errors import CallTimeoutError, ToolError

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
    # stopped by a section's bound ("simplify"), well before the whole grep's own bound
    assert time.monotonic() - start < grep_module.GREP_CALL_SECONDS


def test_literal_line_helper() -> None:
    assert literal_line("one\nTwo TX\nthree tx", "tx") == "Two TX"


def test_a_regex_bomb_is_refused_before_compiling(reader: Reader) -> None:
    start = time.monotonic()
    with pytest.raises(ToolError, match="at most 1000"):
        reader.grep("a{99999999}", regex=True)
    assert time.monotonic() - start < 1.0  # did not return in 60 s before


# each section backtracks ~0.01 s, far under the per-section bound; all of them ~2.5 s
SLOW_DOCS = {f"d{i:03}.md": [("D", "prose", "a" * 15 + " " + "a" * 14)] for i in range(250)}


def test_the_whole_regex_grep_has_the_callers_deadline(raw_store: Callable[..., Path]) -> None:
    with Reader(raw_store(SLOW_DOCS)) as r, deadline.bounded(0.3, "grep"):
        start = time.monotonic()
        with pytest.raises(CallTimeoutError, match="grep took longer than 0.3 s"):
            r.grep("(a|a)+b", regex=True)
        assert time.monotonic() - start < 0.3 * 5


def test_grep_bounds_itself_without_a_caller_deadline(
    raw_store: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert deadline.current() is None and 0 < grep_module.GREP_CALL_SECONDS <= 10
    monkeypatch.setattr(grep_module, "GREP_CALL_SECONDS", 0.3)
    with Reader(raw_store(SLOW_DOCS)) as r, pytest.raises(CallTimeoutError, match="0.3 s"):
        r.grep("(a|a)+b", regex=True)
