"""crdt/dots — dots and causal contexts, the bookkeeping of the observed-remove types.

A dot ``(replica, counter)`` names one write. A causal context is the set of dots a
state has observed, kept compact as a version vector (every counter up to ``vv[r]``)
plus a cloud of the dots beyond a gap. Counters are per object: a replica's next dot
is one past the highest it has observed on that object, so the writes a replica makes
to one object stay contiguous and the context compacts back to a plain vector.
A set of dots is a sorted tuple (canonical, and decoded from msgpack without copying).
Pure; no I/O. Reference: Almeida, Shoker, Baquero, "Delta State Replicated Data
Types" (2018), §5 (dot stores and causal contexts).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

Dot = tuple[str, int]
Dots = tuple[Dot, ...]


@dataclass(frozen=True, slots=True)
class CausalContext:
    """Observed dots: a compact version vector plus the dots beyond a gap."""

    vv: dict[str, int] = field(default_factory=dict)
    cloud: frozenset[Dot] = frozenset()

    def __contains__(self, dot: object) -> bool:
        replica, counter = dot  # type: ignore[misc]
        return counter <= self.vv.get(replica, 0) or dot in self.cloud


EMPTY_CONTEXT = CausalContext()
_STR, _INT = {str}, {int}


def compact(vv: dict[str, int], cloud: Iterable[Dot]) -> CausalContext:
    """A context with every cloud dot contiguous to the vector folded into it."""
    return _fold(dict(vv), cloud)


def _fold(vv: dict[str, int], cloud: Iterable[Dot]) -> CausalContext:
    """``compact`` on a vector the caller hands over (it is updated in place)."""
    if not cloud:
        return CausalContext(vv)
    rest = []
    for replica, counter in sorted(cloud):  # ascending per replica: one pass folds runs
        top = vv.get(replica, 0)
        if counter == top + 1:
            vv[replica] = counter
        elif counter > top:
            rest.append((replica, counter))
    return CausalContext(vv, frozenset(rest))


def of_dots(dots: Iterable[Dot]) -> CausalContext:
    """The context that has observed exactly ``dots`` (and nothing else)."""
    return compact({}, dots)


def join(a: CausalContext, b: CausalContext) -> CausalContext:
    """The union of two contexts, compacted."""
    if a is b or not b.vv and not b.cloud:  # identity, not ``==``: equal ones join below
        return a
    if not a.vv and not a.cloud:
        return b
    vv = dict(a.vv)
    for replica, counter in b.vv.items():
        if counter > vv.get(replica, 0):
            vv[replica] = counter
    return _fold(vv, a.cloud | b.cloud)


def next_dot(context: CausalContext, replica: str) -> Dot:
    """The next dot ``replica`` writes on an object whose context is ``context``."""
    top = context.vv.get(replica, 0)
    for r, counter in context.cloud:
        if r == replica and counter > top:
            top = counter
    return (replica, top + 1)


def disjoint(a: CausalContext, b: CausalContext) -> bool:
    """True when no dot is in both contexts: then neither side can remove the other's dots.

    This is the common case of merging a fresh add into a state, and lets the join be a
    plain union. Cheap when either context is small.
    """
    vv, cloud = a.vv, a.cloud
    for replica, counter in b.vv.items():
        if vv.get(replica, 0) or any(r == replica and c <= counter for r, c in cloud):
            return False
    return not any(c <= vv.get(r, 0) or (r, c) in cloud for r, c in b.cloud)


def surviving(dots: Dots, other: CausalContext) -> Dots:
    """The dots the other side never observed (all of them, usually: no copy then)."""
    vv, cloud = other.vv, other.cloud
    keep = tuple(d for d in dots if d[1] > vv.get(d[0], 0) and d not in cloud)
    return dots if len(keep) == len(dots) else keep


def merge_dots(a: Dots, ctx_a: CausalContext, b: Dots, ctx_b: CausalContext) -> Dots:
    """Dots that survive a join: those both hold, and those the other never observed."""
    if a == b:
        return a
    if not b:
        return surviving(a, ctx_b)
    if not a:
        return surviving(b, ctx_a)
    both = set(a) & set(b)
    keep = both | set(surviving(tuple(d for d in a if d not in both), ctx_b))
    keep |= set(surviving(tuple(d for d in b if d not in both), ctx_a))
    return tuple(sorted(keep))


def encode_context(context: CausalContext) -> tuple:
    """The canonical wire form ``(((replica, counter)...), ((replica, counter)...))``."""
    return (tuple(sorted(context.vv.items())), tuple(sorted(context.cloud)))


def decode_context(body: tuple) -> CausalContext:
    """Inverse of ``encode_context``; raises ``ValueError``/``TypeError`` when malformed."""
    vv_body, cloud_body = body
    vv = dict(vv_body)
    # Type sets rather than a per-dot loop: a context is decoded on every merge of a set.
    if vv and (not {*map(type, vv)} <= _STR or not {*map(type, vv.values())} <= _INT):
        raise ValueError("a dot is (replica: str, counter: int)")
    if not cloud_body:
        return CausalContext(vv)
    if not all(type(r) is str and type(c) is int for r, c in cloud_body):
        raise ValueError("a dot is (replica: str, counter: int)")
    return CausalContext(vv, frozenset(cloud_body))


def join_encoded(a: tuple, b: tuple) -> tuple | None:
    """``encode_context(join(a, b))`` of two wire contexts when they share no dot, else None.

    For the splice of an add into a stored set (``add_wins_set.merge_encoded``), which
    should not build contexts, and whose decoder has already checked that every dot is
    ``(str, int)``. There ``a`` is a non-empty plain vector and ``b`` only the cloud of
    the add's few dots past it, the one shape worked on the wire tuples here; any other
    shape goes through ``decode_context``/``disjoint``/``join``.
    """
    (a_vv, a_cloud), (b_vv, b_cloud) = a, b
    if not a_vv or a_cloud or b_vv or not b_cloud:
        ctx_a, ctx_b = decode_context(a), decode_context(b)
        return encode_context(join(ctx_a, ctx_b)) if disjoint(ctx_a, ctx_b) else None
    vv = dict(a_vv)
    rest = []
    # Ascending per replica, so one pass folds a run; an add is usually a single dot.
    for replica, counter in b_cloud if len(b_cloud) == 1 else sorted(set(b_cloud)):
        top = vv.get(replica, 0)
        if counter <= top:
            return None  # ``a`` observed it
        if counter == top + 1:
            vv[replica] = counter
        else:
            rest.append((replica, counter))
    return tuple(sorted(vv.items())), tuple(rest)


def decode_dots(body: tuple) -> Dots:
    """Check a wire dot set (a sorted tuple of ``(replica, counter)``) and return it."""
    for dot in body:
        if type(dot) is not tuple or len(dot) != 2:
            raise ValueError("a dot is (replica, counter)")
    return body
