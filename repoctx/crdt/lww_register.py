"""crdt/lww_register — last-writer-wins register.

State ``(tick, replica, value)``; the larger ``(tick, replica)`` wins, so two replicas
writing at the same tick are ordered by replica id, and an exact tie (one replica,
one tick, two values — only after a replica id was reused) falls back to the
encoded value. The binary form is byte-ordered: tag, version, the tick as 8 bytes
big-endian, the replica in UTF-8 closed by NUL, then msgpack of the value, so the
merge of two encodings is simply the larger byte string (records use that to merge
registers without decoding them). ``None`` is an ordinary value and the value of
the empty register. Pure; no I/O. Equality is structural. Reference: Shapiro et al.,
"A comprehensive study of Convergent and Commutative Replicated Data Types" (2011),
§3.2.1 (LWW-Register).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from repoctx.errors import PreconditionError

from . import codec
from .tags import FORMAT_VERSION, LWW_REGISTER

__all__ = [
    "LwwRegister",
    "decode",
    "empty",
    "encode",
    "holds_empty",
    "merge",
    "set_value",
    "value",
]

_HEADER = bytes((LWW_REGISTER, FORMAT_VERSION))
_NONE_AFTER_REPLICA = b"\x00" + codec.pack(None)


@dataclass(frozen=True, slots=True)
class LwwRegister:
    """A value stamped with the tick and replica that wrote it."""

    tick: int = 0
    replica: str = ""
    value: Any = None


EMPTY = LwwRegister()


def empty() -> LwwRegister:
    """The register nobody has written: value ``None`` at tick 0."""
    return EMPTY


def value(state: LwwRegister) -> Any:
    """The register's value."""
    return state.value


def set_value(state: LwwRegister, new: Any, tick: int, replica: str) -> LwwRegister:
    """Delta that writes ``new`` at ``tick`` by ``replica`` (the state is not needed)."""
    del state  # a write does not depend on what it overwrites
    if "\x00" in replica or not 0 <= tick < 1 << 64:
        raise PreconditionError("a replica id has no NUL and a tick fits in 64 bits")
    return LwwRegister(tick, replica, new)


def merge(a: LwwRegister, b: LwwRegister) -> LwwRegister:
    """The later write: the same answer as comparing the two encodings byte-wise."""
    ka, kb = (a.tick, a.replica), (b.tick, b.replica)
    if ka != kb:
        return a if ka > kb else b
    if a.value == b.value:
        return a
    return a if codec.pack(a.value) >= codec.pack(b.value) else b


def encode(state: LwwRegister) -> bytes:
    """Byte-ordered binary form (see the module docstring)."""
    return (_HEADER + state.tick.to_bytes(8, "big") + state.replica.encode() + b"\x00"
            + codec.pack(state.value))


def decode(data: bytes) -> LwwRegister:
    """Inverse of ``encode``."""
    codec.check_header(LWW_REGISTER, data, minimum=12)
    end = data.find(b"\x00", 10)
    if end < 0:
        raise codec.shape_error("LwwRegister", "replica id is not NUL-terminated")
    try:
        replica = bytes(data[10:end]).decode()
    except UnicodeDecodeError as exc:
        raise codec.shape_error("LwwRegister", "replica id is not UTF-8") from exc
    val = codec.unpack(bytes(data[end + 1:]))
    return LwwRegister(int.from_bytes(data[2:10], "big"), replica, val)


def holds_empty(data: bytes) -> bool:
    """``value(decode(data)) is None``, read off the bytes: msgpack nil directly follows
    the NUL that closes the replica id (which never holds NUL). Records ask this of
    every field of every record they read, so it does not decode."""
    if data[:2] == _HEADER and len(data) >= 12:
        return data.endswith(_NONE_AFTER_REPLICA) and data.find(b"\x00", 10) == len(data) - 2
    return decode(data).value is None
