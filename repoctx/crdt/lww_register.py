"""crdt/lww_register — last-writer-wins register.

State ``(tick, replica, value)``; the larger ``(tick, replica)`` wins, so two replicas
writing at the same tick are ordered by replica id. ``None`` is an ordinary value
and the value of the empty register. Pure; no I/O. Equality is structural: two
states are equal when they hold the same information. Reference: Shapiro et al.,
"A comprehensive study of Convergent and Commutative Replicated Data Types" (2011),
§3.2.1 (LWW-Register).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import codec
from .tags import LWW_REGISTER

__all__ = ["LwwRegister", "decode", "empty", "encode", "merge", "set_value", "value"]


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
    return LwwRegister(tick, replica, new)


def merge(a: LwwRegister, b: LwwRegister) -> LwwRegister:
    """The later write; an exact tie falls back to the encoded value, so order never matters."""
    ka, kb = (a.tick, a.replica), (b.tick, b.replica)
    if ka != kb:
        return a if ka > kb else b
    if a.value == b.value:
        return a
    return a if codec.pack(a.value) >= codec.pack(b.value) else b


def encode(state: LwwRegister) -> bytes:
    """Binary form: tag, version, msgpack ``[tick, replica, value]``."""
    return codec.frame(LWW_REGISTER, [state.tick, state.replica, state.value])


def decode(data: bytes) -> LwwRegister:
    """Inverse of ``encode``."""
    body = codec.unframe(LWW_REGISTER, data)
    if not (isinstance(body, list) and len(body) == 3 and isinstance(body[0], int)
            and isinstance(body[1], str)):
        raise codec.shape_error("LwwRegister", "expected [tick, replica, value]")
    return LwwRegister(body[0], body[1], codec.freeze(body[2]))

