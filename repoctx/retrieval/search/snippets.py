"""retrieval/search/snippets — bounded windows of a section around where the query matched.

Pure; no I/O. A snippet is a verbatim window of the section text (whitespace collapsed),
placed where the most distinct query words fall within one window, never a blind prefix
unless nothing matched. Windows snap to word boundaries and say ``…`` where they cut.
The matcher (:func:`term_pattern` + :func:`match_positions`) is shared with the rerank.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from repoctx.retrieval.query import light_stem

SNIPPET_CHARS = 240
ELLIPSIS = "…"
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w")
_LEAD_IN = 3  # share of the spare width placed before the first match: 1/3
_RAW_FACTOR = 4  # raw characters read per snippet character (indentation collapses)


def term_pattern(terms: Iterable[str]) -> re.Pattern[str] | None:
    """A pattern for the query words and their light stems, to run on lowercased text.

    Words of four letters or more match inside identifiers (``response`` in
    ``HttpResponse``); shorter ones only at a word start. Every alternative opens with
    a literal letter, so the scan jumps from one possible first letter to the next.
    """
    return _pattern(tuple(terms))


@lru_cache(maxsize=256)
def _pattern(terms: tuple[str, ...]) -> re.Pattern[str] | None:
    forms = dict.fromkeys(form for term in terms for form in (term.lower(), light_stem(term))
                          if len(form) >= 2)
    if not forms:
        return None
    # Alternatives are tried in order and the first that fits a position wins: the
    # longest first, a word-start one counting its boundary as two characters.
    ordered = sorted(forms, key=lambda f: len(re.escape(f)) + (0 if len(f) >= 4 else 2),
                     reverse=True)
    return re.compile("|".join(_alternative(form) for form in ordered))


def _alternative(form: str) -> str:
    """``form`` as one alternative; a short one must start a word. ``\\bab`` would open
    with an assertion, which stops the scan from skipping, so the boundary is checked
    after the first letter: ``a(?<!\\wa)b``, no word character before that ``a``."""
    escaped = re.escape(form)
    if len(form) >= 4:
        return escaped
    if not _WORD.fullmatch(form[0]):
        return rf"\b{escaped}"  # a boundary before a non-word character means the opposite
    first = re.escape(form[0])
    return rf"{first}(?<!\w{first}){re.escape(form[1:])}"


def match_positions(text: str, pattern: re.Pattern[str] | None) -> list[tuple[int, str]]:
    """``(offset, light-stemmed word)`` of every match in ``text``, in order."""
    if pattern is None:
        return []
    lowered = text.lower()
    if len(lowered) != len(text):  # a few characters lowercase to two; offsets would drift
        pattern = re.compile(pattern.pattern, re.IGNORECASE)
        lowered = text
    return [(m.start(), light_stem(m.group(0))) for m in pattern.finditer(lowered)]


def best_window(positions: list[tuple[int, str]], width: int) -> tuple[int, int] | None:
    """``(first, last)`` match offsets of the window of ``width`` with most distinct words."""
    if not positions:
        return None
    best = (0, 0, 0)  # distinct, -first, last
    counts: dict[str, int] = {}
    left = 0
    for offset, word in positions:
        counts[word] = counts.get(word, 0) + 1
        while offset - positions[left][0] > width:
            gone = positions[left][1]
            counts[gone] -= 1
            if not counts[gone]:
                del counts[gone]
            left += 1
        candidate = (len(counts), -positions[left][0], offset)
        if candidate[0] > best[0]:
            best = candidate
    return -best[1], best[2]


def _cut(text: str, start: int, width: int) -> str:
    """About ``width`` characters of ``text`` from raw offset ``start``, whitespace collapsed
    and snapped to whole words; only a bounded stretch of ``text`` is ever collapsed."""
    while start > 0 and not text[start - 1].isspace() and not text[start].isspace():
        start -= 1  # back to the start of the word
    stretch = text[start : start + _RAW_FACTOR * width]
    flat = _SPACE.sub(" ", stretch).strip()
    more = start + len(stretch) < len(text.rstrip())
    if len(flat) > width:
        space = flat.rfind(" ", width - 20, width)
        flat, more = flat[: space if space > 0 else width], True
    lead = ELLIPSIS if text[:start].strip() else ""
    return lead + flat + (ELLIPSIS if more else "")


def snippet(text: str, terms: Iterable[str], width: int = SNIPPET_CHARS,
            positions: list[tuple[int, str]] | None = None) -> str:
    """A window of about ``width`` characters of ``text`` around the query's matches.

    ``positions`` (offsets into ``text``, as :func:`match_positions` gives) saves a scan
    when the caller has them already.
    """
    if positions is None:
        positions = match_positions(text, term_pattern(terms))
    window = best_window(positions, width)
    start = 0
    if window is not None:
        first, last = window
        start = max(0, first - max(0, width - (last - first)) // _LEAD_IN)
        start = max(0, min(start, len(text.rstrip()) - width))  # fill the window near the end
    return _cut(text, start, width)
