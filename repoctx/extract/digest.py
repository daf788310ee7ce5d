"""extract/digest — a short digest of each definition's own text, to tell an edit of a
definition from a move of it.

A definition's own text is its lines, with the annotation lines directly above it
(``@...`` decorators and annotations, ``#[...]`` Rust attributes, ``[...]`` C#
attributes), minus the lines of the definitions nested in it: each line belongs to the
innermost definition spanning it, so a method's lines are not its class's, and adding or
removing a method leaves its class's digest as it was. Blank lines are dropped,
trailing whitespace stripped and the block dedented: lines added above a definition, or
re-indenting it as a whole (wrapping a module in ``if True:``), change nothing; changing
its relative indentation does. Comments inside it are part of its text.

Invariants: pure, language-neutral (only the text and the spans); never raises on any
text or span (a span past the text's end is cut at it).
"""

from __future__ import annotations

import hashlib
import textwrap
from collections.abc import Mapping

Span = tuple[int, int]
"""1-based, inclusive ``(start_line, end_line)`` of a definition (not its annotations)."""

DIGEST_BYTES = 8
"""16 hex characters: a definition's digest is compared with its own earlier digest only."""
_ANNOTATION_PREFIXES = ("@", "#[", "[")
_ANNOTATION_LOOKBACK = 32
"""The most lines above a definition searched for its annotations."""
_OPEN, _CLOSE = "([{", ")]}"


def definition_digests(text: str, spans: Mapping[str, Span]) -> dict[str, str]:
    """The digest of each named definition's own text (see the module docstring)."""
    lines = text.splitlines()
    owner: list[Span | None] = [None] * (len(lines) + 1)  # 1-based; the innermost span
    for span in sorted(set(spans.values()), key=lambda s: (s[0], -s[1])):  # outer first
        first = max(1, annotated_start(lines, span[0]))
        for number in range(first, min(span[1], len(lines)) + 1):
            owner[number] = span
    own: dict[Span, list[str]] = {}
    for number in range(1, len(lines) + 1):
        span = owner[number]
        if span is not None and lines[number - 1].strip():
            own.setdefault(span, []).append(lines[number - 1].rstrip())
    by_span = {span: _digest(own.get(span, [])) for span in set(spans.values())}
    return {fq: by_span[span] for fq, span in spans.items()}


def annotated_start(lines: list[str], start: int) -> int:
    """The first line of the annotations directly above line ``start`` (``start`` itself
    when there are none). An annotation may span lines while a bracket it opened is open
    (``@pytest.mark.parametrize(`` ... ``)``)."""
    best = start
    for top in range(start - 1, max(0, start - 1 - _ANNOTATION_LOOKBACK), -1):
        line = lines[top - 1].strip() if 0 < top <= len(lines) else ""
        if not line:
            break
        if line.startswith(_ANNOTATION_PREFIXES) and _annotations(lines[top - 1:start - 1]):
            best = top
    return best


def _annotations(block: list[str]) -> bool:
    """True if ``block`` is whole annotations: every line opening at bracket depth 0
    starts one, and every bracket opened is closed by the end."""
    depth = 0
    for raw in block:
        line = raw.strip()
        if depth == 0 and not line.startswith(_ANNOTATION_PREFIXES):
            return False
        depth += sum(line.count(c) for c in _OPEN) - sum(line.count(c) for c in _CLOSE)
        if depth < 0:
            return False
    return depth == 0


def _digest(own: list[str]) -> str:
    body = textwrap.dedent("\n".join(own))
    return hashlib.blake2b(body.encode("utf-8", "surrogatepass"),
                           digest_size=DIGEST_BYTES).hexdigest()
