"""The body: diff into splices, apply only the changed region, size bound."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repoctx.crdt import text_body
from repoctx.errors import ToolError
from repoctx.memory.body import MAX_BODY_BYTES, check_body, edits, rewrite


def apply(old: str, splices) -> str:
    out = old
    for start, end, text in sorted(splices, reverse=True):
        out = out[:start] + text + out[end:]
    return out


@settings(max_examples=200, deadline=None)
@given(st.text("ab\n é😀", max_size=60), st.text("ab\n é😀", max_size=60))
def test_edits_turn_old_into_new(old, new):
    assert apply(old, edits(old, new)) == new


def test_equal_texts_need_no_edit_and_a_small_change_one_small_splice():
    assert edits("same", "same") == []
    assert edits("hello world", "hello there world") == [(6, 6, "there ")]


def test_large_bodies_diff_by_line_then_by_character():
    old = "".join(f"line {i}\n" for i in range(5_000))
    new = old.replace("line 10\n", "line ten\n").replace("line 4000\n", "")
    got = edits(old, new)
    assert apply(old, got) == new
    assert sum(len(t) + (e - s) for s, e, t in got) < 40


def test_rewrite_touches_only_the_changed_region():
    base = rewrite(text_body.EMPTY, "x" * 10_000 + "\n", "r1")
    delta = rewrite(base, "x" * 5_000 + "!" + "x" * 5_000 + "\n", "r1")
    assert len(delta.update) < 100
    assert text_body.value(text_body.merge(base, delta)).count("!") == 1
    assert rewrite(base, text_body.value(base), "r1") == text_body.EMPTY


def test_check_body_bounds_utf8_bytes():
    assert check_body("x" * MAX_BODY_BYTES)
    with pytest.raises(ToolError, match="65536 bytes"):
        check_body("é" * (MAX_BODY_BYTES // 2 + 1))
    with pytest.raises(ToolError, match="Unicode"):
        check_body("bad \ud800 surrogate")
