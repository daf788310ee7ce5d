"""crdt/max_register — a register that only moves up (an expiry, a last-modified tick).

State is an int or ``None`` (never set); merge is the maximum with ``None`` below
every int. Used for a record's authoring tick and its optional expiry, which "only
ever moves later". Pure; no I/O. Reference: Shapiro et al. (2011), §3.1 (max
register as the simplest state-based CRDT: a join semilattice of integers).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import codec
from .tags import MAX_REGISTER

__all__ = ["MaxRegister", "decode", "empty", "encode", "merge", "raise_to", "value"]


@dataclass(frozen=True, slots=True)
class MaxRegister:
    """The largest int written so far, or ``None``."""

    value: int | None = None


EMPTY = MaxRegister()


def empty() -> MaxRegister:
    """The register never set."""
    return EMPTY


def value(state: MaxRegister) -> int | None:
    """The largest value written, or ``None``."""
    return state.value


def raise_to(state: MaxRegister, new: int) -> MaxRegister:
    """Delta that raises the register to ``new`` (a no-op when it is already higher)."""
    del state  # the join takes care of a lower write
    return MaxRegister(new)


def merge(a: MaxRegister, b: MaxRegister) -> MaxRegister:
    """The larger of the two; ``None`` loses to any int."""
    if a.value is None:
        return b
    if b.value is None or a.value >= b.value:
        return a
    return b


def encode(state: MaxRegister) -> bytes:
    """Binary form: tag, version, msgpack int or nil."""
    return codec.frame(MAX_REGISTER, state.value)


def decode(data: bytes) -> MaxRegister:
    """Inverse of ``encode``."""
    body = codec.unframe(MAX_REGISTER, data)
    if body is not None and (not isinstance(body, int) or isinstance(body, bool)):
        raise codec.shape_error("MaxRegister", "expected an int or nil")
    return MaxRegister(body)
