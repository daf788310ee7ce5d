"""retrieval/fusion — reciprocal-rank fusion of the ranked lists search gathers.

Pure; no I/O. RRF (Cormack, Clarke & Büttcher, SIGIR 2009) adds ``weight / (k + rank)``
per list an item appears in, so an item ranked well by several matchers beats one that
only a single matcher likes, without comparing their score scales. Each contribution is
kept by list name, so a hit can say why it matched.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field

RRF_K = 60


@dataclass
class Fused:
    """One item's fused score and the lists that contributed to it."""

    key: Hashable
    score: float = 0.0
    sources: dict[str, int] = field(default_factory=dict)  # list name -> best rank (1-based)


def fuse(rankings: Iterable[tuple[str, float, Iterable[Hashable]]]) -> dict[Hashable, Fused]:
    """Fuse ``(name, weight, ranked keys)`` lists; a key repeated in one list counts once."""
    fused: dict[Hashable, Fused] = {}
    for name, weight, keys in rankings:
        for rank, key in enumerate(dict.fromkeys(keys), start=1):
            item = fused.setdefault(key, Fused(key))
            item.score += weight / (RRF_K + rank)
            item.sources[name] = rank
    return fused


def ordered(fused: dict[Hashable, Fused]) -> list[Fused]:
    """Fused items best first; ties by key text, so the order is deterministic."""
    return sorted(fused.values(), key=lambda f: (-f.score, str(f.key)))
