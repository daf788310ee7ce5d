from __future__ import annotations

import dataclasses

import pytest

from repoctx.extract import KINDS, Symbol
from repoctx.extract.symbol import SIGNATURE_MAX, bounded


def test_symbol_is_frozen_and_structural() -> None:
    symbol = Symbol("m.f", "f", "function", "def f()", "", 1, 2, ("g",))
    assert symbol == Symbol("m.f", "f", "function", "def f()", "", 1, 2, ("g",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        symbol.name = "g"  # type: ignore[misc]


def test_kinds() -> None:
    assert {"class", "function", "method", "variable"} == KINDS


@pytest.mark.parametrize(("text", "expected"), [
    ("def  f(\n    a,\t b)", "def f( a, b)"),
    ("  x  ", "x"),
    ("", ""),
])
def test_bounded_collapses_whitespace(text: str, expected: str) -> None:
    assert bounded(text) == expected


def test_bounded_cuts_with_an_ellipsis() -> None:
    assert bounded("x" * 500) == "x" * (SIGNATURE_MAX - 1) + "…"
    assert bounded("x" * SIGNATURE_MAX) == "x" * SIGNATURE_MAX
    assert bounded("abcdef", limit=4) == "abc…"
