"""A user regex is measured before compiling: counted repeats and their expansion bounded."""

from __future__ import annotations

import resource
import time

import pytest
import regex

from repoctx.contextpull.read.pattern import (
    MAX_EXPANDED,
    MAX_REPEAT,
    compile_pattern,
    expanded_size,
)
from repoctx.errors import ToolError


@pytest.mark.parametrize(("pattern", "size"), [
    ("abc", 3),
    ("a{1000}", 1000),
    ("(a{100}){10}", 1000),
    ("((a{10}){10}){10}", 1000),
    ("a{,50}b{5,}c{2,7}", 50 + 5 + 7),
    (r"[a-z{]{10}", 10),  # a class is one item, its { no repeat
    (r"\p{L}{5}", 5),  # \p{…} braces are no repeat
    (r"\{9999999}", 9),  # an escaped brace starts no repeat
    ("x{}", 1),
    ("a+b*c?", 3),
])
def test_expanded_size(pattern: str, size: int) -> None:
    assert expanded_size(pattern) == size


@pytest.mark.parametrize("pattern", ["a{99999999}", "a{9999999}", "(ab){1001}", "a{1,5000}",
                                     "a{2000,}"])
def test_a_repeat_count_over_the_limit_is_refused_naming_it(pattern: str) -> None:
    start = time.monotonic()
    with pytest.raises(ToolError, match=f"at most {MAX_REPEAT}"):
        compile_pattern(pattern)
    assert time.monotonic() - start < 1.0  # a{9999999} takes 29.7 s and 2.7 GB to compile


@pytest.mark.parametrize("pattern", ["((a{1000}){1000}){1000}", "(a{1000}){1000}",
                                     "(a{100}){1000}b{1000}"])
def test_nested_repeats_expanding_past_the_limit_are_refused(pattern: str) -> None:
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ToolError, match=f"{MAX_EXPANDED:,}"):
        compile_pattern(pattern)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before < 50_000  # KiB


def test_what_passes_the_bound_compiles_quickly() -> None:
    start = time.monotonic()
    compiled = compile_pattern("(a{100}){1000}")  # exactly the limit
    assert time.monotonic() - start < 1.0
    assert compiled.flags & regex.IGNORECASE


def test_an_invalid_pattern_is_a_tool_error() -> None:
    for bad in ("(unclosed", "a{2,1}", "[z-a]"):
        with pytest.raises(ToolError, match="invalid regular expression"):
            compile_pattern(bad)
