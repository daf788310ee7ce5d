"""crdt/or_flag — enable-wins flag (observed-remove flag).

State: the dots of the enables still in force, plus the causal context observed.
Enabling adds a fresh dot; disabling removes only the dots it observed, so a
concurrent enable elsewhere survives the disable ("enable wins"). Pure; no I/O.
Reference: Almeida, Shoker, Baquero (2018), §7.1 (enable-wins flag).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import codec
from .dots import (
    EMPTY_CONTEXT,
    CausalContext,
    Dots,
    decode_context,
    decode_dots,
    encode_context,
    join,
    merge_dots,
    next_dot,
    of_dots,
)
from .tags import OR_FLAG

__all__ = ["OrFlag", "decode", "disable", "empty", "enable", "encode", "merge", "value"]


@dataclass(frozen=True, slots=True)
class OrFlag:
    """Enable dots in force and the context they were judged against."""

    dots: Dots = ()
    context: CausalContext = EMPTY_CONTEXT


EMPTY = OrFlag()


def empty() -> OrFlag:
    """The flag nobody enabled: off."""
    return EMPTY


def value(state: OrFlag) -> bool:
    """Whether any enable is in force."""
    return bool(state.dots)


def enable(state: OrFlag, replica: str) -> OrFlag:
    """Delta that enables the flag with a fresh dot, superseding the enables observed."""
    dot = next_dot(state.context, replica)
    return OrFlag((dot,), of_dots((*state.dots, dot)))


def disable(state: OrFlag) -> OrFlag:
    """Delta that removes the enables observed; an unobserved concurrent enable survives."""
    return OrFlag((), of_dots(state.dots))


def merge(a: OrFlag, b: OrFlag) -> OrFlag:
    """Join: dots both hold or the other never saw; contexts united."""
    if a == b:
        return a
    return OrFlag(merge_dots(a.dots, a.context, b.dots, b.context), join(a.context, b.context))


def encode(state: OrFlag) -> bytes:
    """Binary form: tag, version, msgpack ``[dots, context]``."""
    return codec.frame(OR_FLAG, (state.dots, encode_context(state.context)))


def decode(data: bytes) -> OrFlag:
    """Inverse of ``encode``."""
    body = codec.unframe(OR_FLAG, data)
    try:
        dots_body, ctx_body = body
        return OrFlag(decode_dots(dots_body), decode_context(ctx_body))
    except (TypeError, ValueError) as exc:
        raise codec.shape_error("OrFlag", str(exc)) from exc
