"""retrieval/search/fusion — reciprocal-rank fusion of the ranked lists search gathers.

Pure; no I/O. RRF (Cormack, Clarke & Büttcher, SIGIR 2009) adds ``weight / (k + rank)``
per list an item appears in, so an item ranked well by several matchers beats one that
only a single matcher likes, without comparing their score scales. Each contribution is
kept by list name, so a hit can say why it matched.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

from repoctx.retrieval.tuning import TUNING


@dataclass
class Fused:
    """One item's fused score and the lists that contributed to it."""

    key: Hashable
    score: float = 0.0
    sources: dict[str, int] = field(default_factory=dict)  # list name -> best rank (1-based)


def fuse(rankings: Iterable[tuple[str, float, Iterable[Hashable]]],
         k: int = TUNING.fusion.rrf_k) -> dict[Hashable, Fused]:
    """Fuse ``(name, weight, ranked keys)`` lists with RRF constant ``k``; a key repeated
    in one list counts once."""
    fused: dict[Hashable, Fused] = {}
    for name, weight, keys in rankings:
        for rank, key in enumerate(dict.fromkeys(keys), start=1):
            item = fused.setdefault(key, Fused(key))
            item.score += weight / (k + rank)
            item.sources[name] = rank
    return fused


def ordered(fused: dict[Hashable, Fused]) -> list[Fused]:
    """Fused items best first; ties by key text, so the order is deterministic."""
    return sorted(fused.values(), key=lambda f: (-f.score, str(f.key)))


def guarded(keyword: Sequence[Hashable], semantic: Sequence[Hashable], *, pinned: int = 0,
            weight: float = TUNING.fusion.semantic_weight,
            k: int = TUNING.fusion.guarded_k) -> list[Hashable]:
    """Keyword and semantic rankings fused so that the semantic side never overrides
    strong lexical evidence.

    The first ``pinned`` keyword keys (those the caller judged strong: an exact name, a
    path) keep their places. Below them, weighted RRF: a keyword key scores
    ``1 / (k + rank)``, plus ``weight / (k + rank)`` when the semantic list agrees; a key
    only the semantic list has scores ``weight / (k + rank)``, so with ``weight`` < 1
    a semantic-only neighbour ranks below the keyword hits of similar rank instead of
    displacing them, while agreement lifts a keyword hit. Ties keep the keyword order.
    """
    keyword = list(dict.fromkeys(keyword))
    head = keyword[:pinned]
    fixed = set(head)
    score: dict[Hashable, float] = {}
    order: dict[Hashable, tuple[int, int]] = {}
    for rank, key in enumerate(keyword[pinned:], start=pinned + 1):
        score[key] = 1.0 / (k + rank)
        order[key] = (0, rank)
    for rank, key in enumerate(dict.fromkeys(semantic), start=1):
        if key in fixed:
            continue
        score[key] = score.get(key, 0.0) + weight / (k + rank)
        order.setdefault(key, (1, rank))
    tail = sorted(score, key=lambda key: (-score[key], order[key]))
    return head + tail
