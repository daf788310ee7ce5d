"""crdt/dots — dots and causal contexts, the bookkeeping of the observed-remove types.

A dot ``(replica, counter)`` names one write. A causal context is the set of dots a
state has observed, kept compact as a version vector (every counter up to ``vv[r]``)
plus a cloud of the dots beyond a gap. Counters are per object: a replica's next dot
is one past the highest it has observed on that object, so the writes a replica makes
to one object stay contiguous and the context compacts back to a plain vector.
Pure; no I/O. Reference: Almeida, Shoker, Baquero, "Delta State Replicated Data
Types" (2018), §5 (dot stores and causal contexts).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

Dot = tuple[str, int]


@dataclass(frozen=True, slots=True)
class CausalContext:
    """Observed dots: a compact version vector plus the dots beyond a gap."""

    vv: dict[str, int] = field(default_factory=dict)
    cloud: frozenset[Dot] = frozenset()

    def __contains__(self, dot: object) -> bool:
        replica, counter = dot  # type: ignore[misc]
        return counter <= self.vv.get(replica, 0) or dot in self.cloud


EMPTY_CONTEXT = CausalContext()


def compact(vv: dict[str, int], cloud: Iterable[Dot]) -> CausalContext:
    """A context with every cloud dot contiguous to the vector folded into it."""
    vv = dict(vv)
    rest: set[Dot] = set()
    for replica, counter in sorted(cloud):
        top = vv.get(replica, 0)
        if counter == top + 1:
            vv[replica] = counter
        elif counter > top:
            rest.add((replica, counter))
    # Folding can close a gap behind a dot already set aside; fold again until stable.
    while rest:
        joined = {d for d in rest if d[1] == vv.get(d[0], 0) + 1}
        if not joined:
            break
        for replica, counter in sorted(joined):
            vv[replica] = counter
        rest = {d for d in rest if d[1] > vv.get(d[0], 0)}
    return CausalContext(vv, frozenset(rest))


def of_dots(dots: Iterable[Dot]) -> CausalContext:
    """The context that has observed exactly ``dots`` (and nothing else)."""
    return compact({}, dots)


def join(a: CausalContext, b: CausalContext) -> CausalContext:
    """The union of two contexts, compacted."""
    if a == b or not b.vv and not b.cloud:
        return a
    if not a.vv and not a.cloud:
        return b
    vv = dict(a.vv)
    for replica, counter in b.vv.items():
        if counter > vv.get(replica, 0):
            vv[replica] = counter
    return compact(vv, a.cloud | b.cloud)


def next_dot(context: CausalContext, replica: str) -> Dot:
    """The next dot ``replica`` writes on an object whose context is ``context``."""
    top = context.vv.get(replica, 0)
    for r, counter in context.cloud:
        if r == replica and counter > top:
            top = counter
    return (replica, top + 1)


def merge_dots(
    a: frozenset[Dot], ctx_a: CausalContext, b: frozenset[Dot], ctx_b: CausalContext
) -> frozenset[Dot]:
    """Dots that survive a join: those both hold, and those the other never observed."""
    if a == b:
        return a
    keep = a & b
    keep |= {d for d in a - keep if d not in ctx_b}
    keep |= {d for d in b - keep if d not in ctx_a}
    return frozenset(keep)


def encode_context(context: CausalContext) -> list:
    """The canonical wire form ``[[[replica, counter]...], [[replica, counter]...]]``."""
    return [sorted([r, c] for r, c in context.vv.items()), sorted([r, c] for r, c in context.cloud)]


def decode_context(body: list) -> CausalContext:
    """Inverse of ``encode_context``; raises on a malformed body."""
    vv_body, cloud_body = body
    vv = {str(r): int(c) for r, c in vv_body}
    cloud = frozenset((str(r), int(c)) for r, c in cloud_body)
    return CausalContext(vv, cloud)


def encode_dots(dots: frozenset[Dot]) -> list:
    """Sorted wire form of a dot set."""
    return sorted([r, c] for r, c in dots)


def decode_dots(body: list) -> frozenset[Dot]:
    """Inverse of ``encode_dots``."""
    return frozenset((str(r), int(c)) for r, c in body)
