"""`contextpull/read/pattern` — a user regular expression, checked before it is compiled.

Pure; no I/O. The ``regex`` package expands counted repeats when compiling, so
``a{9999999}`` takes 29.7 s and 2.7 GB and ``((a{1000}){1000}){1000}`` exhausts memory before
any match timeout can apply. A pattern is therefore measured first:
every counted repeat (``{n}``, ``{m,n}``, ``{m,}``, ``{,n}``) must be at most
:data:`MAX_REPEAT`, and the pattern's size with every repeat expanded (nested repeats
multiply) at most :data:`MAX_EXPANDED`. The measure over-approximates (alternatives add up,
a range counts as its upper bound), so what passes compiles in milliseconds.
"""

from __future__ import annotations

import re

import regex

from repoctx.errors import ToolError

MAX_REPEAT = 1000
"""Largest count a ``{…}`` repeat may name."""
MAX_EXPANDED = 100_000
"""Largest size of a pattern with its repeats expanded (about 30 MB of compiled code)."""

_COUNTED = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")
_BRACED_ESCAPES = "pPNxgu"  # \p{L}, \N{name}, \x{263a}, \g{1}: braces that are no repeat


def _class_end(pattern: str, start: int) -> int:
    """The index just past the character class opening at ``start`` (nested ``[`` too)."""
    i, depth = start + 1, 1
    if pattern[i : i + 1] == "^":
        i += 1
    if pattern[i : i + 1] == "]":
        i += 1  # a leading ] is a literal
    while i < len(pattern) and depth:
        ch = pattern[i]
        if ch == "\\":
            i += 1
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        i += 1
    return i


def _escape_end(pattern: str, start: int) -> int:
    """The index just past the escape opening at ``start`` (``\\p{…}`` forms included)."""
    end = start + 2
    if pattern[start + 1 : end] in tuple(_BRACED_ESCAPES) and pattern[end : end + 1] == "{":
        close = pattern.find("}", end)
        return len(pattern) if close < 0 else close + 1
    return end


def _repeat_count(match: re.Match[str]) -> int:
    low, comma, high = match.group(1), match.group(2), match.group(3)
    numbers = [int(n) for n in (low, high) if n]
    if not numbers or (comma is None and not low):
        return 1
    count = max(numbers)
    if count > MAX_REPEAT:
        raise ToolError(
            f"pattern: a repeat count may be at most {MAX_REPEAT} (got {count}); use a "
            "smaller count, an open repeat such as + or *, or literal mode"
        )
    return count


def expanded_size(pattern: str) -> int:
    """The size of ``pattern`` with its repeats expanded; raises past :data:`MAX_REPEAT`."""
    levels: list[list[int]] = [[]]
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        counted = _COUNTED.match(pattern, i) if ch == "{" and levels[-1] else None
        if counted:
            levels[-1][-1] *= _repeat_count(counted)
            i = counted.end()
            continue
        if ch == "(":
            levels.append([])
        elif ch == ")" and len(levels) > 1:
            inner = levels.pop()
            levels[-1].append(max(1, sum(inner)))
        elif ch in "*+?|":
            pass  # open repeats and alternation compile without expansion
        else:
            end = (_class_end(pattern, i) if ch == "[" else
                   _escape_end(pattern, i) if ch == "\\" else i + 1)
            levels[-1].append(1)
            i = end
            continue
        i += 1
    return sum(sum(level) for level in levels)


def compile_pattern(pattern: str) -> regex.Pattern:
    """Check ``pattern``'s size, then compile it case-insensitively; or raise ToolError."""
    size = expanded_size(pattern)
    if size > MAX_EXPANDED:
        raise ToolError(
            f"pattern: its repeats expand to {size:,} items, more than {MAX_EXPANDED:,}; "
            "nest fewer counted repeats or use smaller counts"
        )
    try:
        return regex.compile(pattern, regex.IGNORECASE)
    except (regex.error, OverflowError, RecursionError, ValueError) as exc:
        raise ToolError(f"pattern: invalid regular expression ({exc})") from exc
