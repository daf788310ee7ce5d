"""retrieval/search/rerank — reorder the fused candidates by term proximity and title hits.

Pure; no I/O. After fusion, the best candidates are read in full and scored again on
what rank lists cannot see: how many distinct query words the section holds, how close
together they sit (the shortest stretch of text holding all of them), how often
neighbouring query words appear next to each other in query order, and whether the
words are in the section's heading or name. The result multiplies the fused score, so
fusion order still dominates when the texts say nothing. Matching uses the snippet
matcher (``snippets.term_pattern``), so no section is tokenised in full.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from repoctx.retrieval.search.snippets import match_positions
from repoctx.retrieval.tuning import TUNING, RerankTuning

_RERANK = TUNING.rerank


@dataclass(frozen=True)
class RerankSignals:
    """What the rerank saw in one candidate."""

    coverage: float  # share of distinct query words present
    proximity: float  # how tightly the present words cluster (0..1)
    pairs: int  # neighbouring query-word pairs found in query order, close together
    heading: float  # share of query words in the heading or name

    def factor(self, tuning: RerankTuning = _RERANK) -> float:
        """The multiplier applied to the fused score."""
        return (1.0 + tuning.coverage_weight * self.coverage
                + tuning.proximity_weight * self.proximity
                + tuning.pair_weight * min(self.pairs, 3) / 3
                + tuning.heading_weight * self.heading)


def smallest_span(positions: list[tuple[int, str]], wanted: set[str]) -> int | None:
    """Characters of the shortest stretch holding every word of ``wanted``."""
    if not wanted:
        return None
    counts: dict[str, int] = {}
    best: int | None = None
    left = 0
    for offset, word in positions:
        counts[word] = counts.get(word, 0) + 1
        while len(counts) == len(wanted):
            size = offset - positions[left][0] + 1
            best = size if best is None or size < best else best
            gone = positions[left][1]
            counts[gone] -= 1
            if not counts[gone]:
                del counts[gone]
            left += 1
    return best


def ordered_pairs(positions: list[tuple[int, str]], query: list[str],
                  gap: int = _RERANK.pair_gap_chars) -> int:
    """How often query word i is followed by query word i+1 within ``gap`` characters."""
    following = {a: b for a, b in zip(query, query[1:], strict=False) if a != b}
    firsts: dict[str, list[str]] = {}  # second word -> the words it follows
    for first, second in following.items():
        firsts.setdefault(second, []).append(first)
    last_seen: dict[str, int] = {}
    found = 0
    for offset, word in positions:
        for first in firsts.get(word, ()):
            if offset - last_seen.get(first, -10**9) <= gap:
                found += 1
        last_seen[word] = offset
    return found


def signals(matches: list[tuple[int, str]], heading: str, query: list[str],
            pattern: re.Pattern[str] | None, *, tuning: RerankTuning = _RERANK
            ) -> RerankSignals:
    """Rerank signals of a section for the light-stemmed ``query`` words.

    ``matches`` are ``match_positions(text, pattern)`` of the section text; ``heading``
    is its heading path and name; ``pattern`` is ``term_pattern(query)``.
    """
    wanted = set(query)
    if not wanted or pattern is None:
        return RerankSignals(0.0, 0.0, 0, 0.0)
    positions = [(o, w) for o, w in matches if w in wanted]
    present = {w for _, w in positions}
    span = smallest_span(positions, present) if len(present) >= 2 else None
    proximity = min(1.0, tuning.span_floor_chars * (len(present) - 1) / span) if span else 0.0
    in_heading = {w for _, w in match_positions(heading, pattern)} & wanted
    return RerankSignals(len(present) / len(wanted), proximity, ordered_pairs(positions, query,
                                                               tuning.pair_gap_chars),
                         len(in_heading) / len(wanted))
