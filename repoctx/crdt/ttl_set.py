"""crdt/ttl_set — grow-only set whose elements carry an expiry.

State: element -> expiry (epoch milliseconds); merge keeps the later expiry, so
re-adding an element slides its lifetime forward and a concurrent shorter add never
shortens it. ``value`` is every element ever added; ``live`` filters by a time the
caller passes (pure: the clock comes in as an argument). Used for session receipts
and whole-file possession. Reference: Shapiro et al. (2011), §3.3.1 (G-Set), with a
max-register per element.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import codec
from .tags import TTL_SET

__all__ = ["TtlSet", "add", "decode", "empty", "encode", "live", "merge", "value"]


@dataclass(frozen=True, slots=True)
class TtlSet:
    """Elements and the epoch-millisecond time each one expires."""

    expiries: dict[str, int] = field(default_factory=dict)


EMPTY = TtlSet()


def empty() -> TtlSet:
    """The set with no elements."""
    return EMPTY


def value(state: TtlSet) -> frozenset[str]:
    """Every element, expired or not."""
    return frozenset(state.expiries)


def live(state: TtlSet, now_ms: int) -> frozenset[str]:
    """The elements whose expiry is after ``now_ms``."""
    return frozenset(e for e, t in state.expiries.items() if t > now_ms)


def add(state: TtlSet, element: str, expires_ms: int) -> TtlSet:
    """Delta that adds ``element`` (or extends it) until ``expires_ms``."""
    del state  # the join keeps the later expiry
    return TtlSet({element: expires_ms})


def merge(a: TtlSet, b: TtlSet) -> TtlSet:
    """Union, keeping each element's later expiry."""
    if a == b or not b.expiries:
        return a
    if not a.expiries:
        return b
    merged = dict(a.expiries)
    for element, expiry in b.expiries.items():
        if expiry > merged.get(element, -1):
            merged[element] = expiry
    return TtlSet(merged)


def encode(state: TtlSet) -> bytes:
    """Binary form: tag, version, msgpack ``[[element, expiry]...sorted]``."""
    return codec.frame(TTL_SET, [[e, t] for e, t in sorted(state.expiries.items())])


def decode(data: bytes) -> TtlSet:
    """Inverse of ``encode``."""
    body = codec.unframe(TTL_SET, data)
    try:
        return TtlSet({str(e): int(t) for e, t in body})
    except (TypeError, ValueError) as exc:
        raise codec.shape_error("TtlSet", str(exc)) from exc
