"""crdt/max_register — a register that only moves up (an expiry, a last-modified tick).

State is an int or ``None`` (never set); merge is the maximum with ``None`` below
every int. Used for a record's authoring tick and its optional expiry, which "only
ever moves later". The binary form is byte-ordered (tag, version, then nothing for
``None`` or the value offset by 2**63 as 8 bytes big-endian), so the merge of two
encodings is the larger byte string. Pure; no I/O. Reference: Shapiro et al. (2011),
§3.1 (a join semilattice of integers under max).
"""

from __future__ import annotations

from dataclasses import dataclass

from repoctx.errors import PreconditionError

from . import codec
from .tags import FORMAT_VERSION, MAX_REGISTER

__all__ = ["MaxRegister", "decode", "empty", "encode", "merge", "raise_to", "value"]

_HEADER = bytes((MAX_REGISTER, FORMAT_VERSION))
_OFFSET = 1 << 63


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
    if not -_OFFSET <= new < _OFFSET:
        raise PreconditionError("a max register holds a signed 64-bit int")
    return MaxRegister(new)


def merge(a: MaxRegister, b: MaxRegister) -> MaxRegister:
    """The larger of the two; ``None`` loses to any int."""
    if a.value is None:
        return b
    if b.value is None or a.value >= b.value:
        return a
    return b


def encode(state: MaxRegister) -> bytes:
    """Byte-ordered binary form (see the module docstring)."""
    if state.value is None:
        return _HEADER
    return _HEADER + (state.value + _OFFSET).to_bytes(8, "big")


def decode(data: bytes) -> MaxRegister:
    """Inverse of ``encode``."""
    codec.check_header(MAX_REGISTER, data, minimum=2)
    if len(data) == 2:
        return EMPTY
    if len(data) != 10:
        raise codec.shape_error("MaxRegister", "expected 8 bytes after the header")
    return MaxRegister(int.from_bytes(data[2:10], "big") - _OFFSET)
