"""memory/staleness — whether a memory entry's links still point at what they meant.

Seed 003: the walk is driven by the live links, never by the captured-digest map, so
an unlinked digest is never evaluated and removing a link leaves no phantom flag. A
structural link (file or symbol) is fresh only when a digest was captured for it,
the target still has a live record, and the two digests are equal; every other
outcome is stale. ``dangling`` is the subset of ``stale`` whose target has no live
record. Memory-to-memory links are not structural and are never stale. Bulk reads
do not evaluate and report ``NOT_EVALUATED``. Pure functions of the getter's answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .links import STRUCTURAL, Getter, family, target_digest
from .memory_record import Entry

NOT_EVALUATED: dict[str, Any] = {"stale": None, "staleLinks": None, "danglingLinks": None}


@dataclass(frozen=True, slots=True)
class Staleness:
    """The structural links of an entry that went stale, and which of them dangle."""

    stale_links: tuple[str, ...] = ()
    dangling_links: tuple[str, ...] = ()

    @property
    def stale(self) -> bool:
        """True when any link is stale."""
        return bool(self.stale_links)

    def as_json(self) -> dict[str, Any]:
        """``{stale, staleLinks, danglingLinks}``."""
        return {"stale": self.stale, "staleLinks": list(self.stale_links),
                "danglingLinks": list(self.dangling_links)}


FRESH = Staleness()


def link_state(get: Getter, target: str, captured: str | None) -> tuple[bool, bool]:
    """``(stale, dangling)`` of one link to ``target`` whose captured digest is ``captured``."""
    if family(target) not in STRUCTURAL:
        return False, False
    current = target_digest(get, target)
    if current is None:
        return True, True
    return captured is None or captured != current, False


def evaluate(entry: Entry, get: Getter) -> Staleness:
    """Check every live link of ``entry`` against its target's present state."""
    stale, dangling = [], []
    for target in sorted(entry.targets()):
        is_stale, is_dangling = link_state(get, target, entry.digests.get(target))
        if is_stale:
            stale.append(target)
        if is_dangling:
            dangling.append(target)
    return Staleness(tuple(stale), tuple(dangling))
