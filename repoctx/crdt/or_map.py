"""crdt/or_map — observed-remove map from string keys to last-writer-wins values.

State: key -> {dot: (tick, value)} for the puts in force, plus the causal context.
A put tags the key with a fresh dot, superseding the puts it observed; a remove drops
the observed dots, so a concurrent put elsewhere keeps the key. Each surviving put
keeps its own value, and a key reads as the surviving put with the largest
``(tick, replica)`` — a value that was removed can never resurface through a merge.
Used for a memory entry's link-digest map. Pure; no I/O. Reference: Almeida, Shoker,
Baquero (2018), §7.3 (observed-remove map over a dot store).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from repoctx.errors import PreconditionError

from . import codec
from .dots import (
    EMPTY_CONTEXT,
    CausalContext,
    Dot,
    Dots,
    decode_context,
    encode_context,
    join,
    merge_dots,
    next_dot,
    of_dots,
)
from .tags import OR_MAP

__all__ = ["OrMap", "decode", "empty", "encode", "merge", "put", "remove", "value", "value_of"]

Puts = dict[Dot, tuple[int, Any]]


@dataclass(frozen=True, slots=True)
class OrMap:
    """Keys with their puts in force (dot -> (tick, value)), plus the context."""

    entries: dict[str, Puts] = field(default_factory=dict)
    context: CausalContext = EMPTY_CONTEXT


EMPTY = OrMap()


def empty() -> OrMap:
    """The map with no keys."""
    return EMPTY


def value(state: OrMap) -> dict[str, Any]:
    """Plain ``{key: value of its latest surviving put}``."""
    return {key: _latest(puts) for key, puts in state.entries.items()}


def value_of(data: bytes, key: str) -> Any:
    """``value(decode(data)).get(key)``, decoding only that key's value.

    For a reader that wants one key of a big map (an export reads one file's declaration
    from each symbol record): the other rows stay undecoded, and the context unchecked.
    """
    codec.check_header(OR_MAP, data, minimum=3)
    rows_decoder, decode_error = _rows_encoded()
    try:
        rows, _ = rows_decoder.decode(data[2:])
    except decode_error as exc:
        raise codec.shape_error("OrMap", str(exc)) from exc
    for row_key, puts in rows:
        if row_key == key:
            # As ``_latest``: the largest (tick, replica, encoded value); encodings are canonical.
            put = puts[0] if len(puts) == 1 else max(puts, key=lambda p: (p[2], p[0], bytes(p[3])))
            return codec.unpack(put[3])
    return None


@cache
def _rows_encoded() -> tuple[Any, type[Exception]]:
    """A decoder of a body ``[rows, context]`` whose puts ``[replica, counter, tick,
    value]`` keep the value encoded, and whose context is left as it is; and msgspec's
    decode error (built on first use: see ``codec._field_codecs``)."""
    import msgspec

    return msgspec.msgpack.Decoder(tuple[
        tuple[tuple[str, tuple[tuple[str, int, int, msgspec.Raw], ...]], ...],
        msgspec.Raw]), msgspec.DecodeError  # fmt: skip


def _latest(puts: Puts) -> Any:
    if len(puts) == 1:  # the usual key: one put, nothing to order (nor to pack)
        return next(iter(puts.values()))[1]
    dot, (_, val) = max(puts.items(), key=lambda p: (p[1][0], p[0][0], codec.pack(p[1][1])))
    del dot
    return val


def put(state: OrMap, key: str, new: Any, tick: int, replica: str) -> OrMap:
    """Delta that sets ``key`` to ``new`` at ``tick``, superseding its observed puts."""
    dot = next_dot(state.context, replica)
    observed = tuple(state.entries.get(key, {}))
    return OrMap({key: {dot: (tick, new)}}, of_dots((*observed, dot)))


def remove(state: OrMap, key: str) -> OrMap:
    """Delta that removes the observed puts of ``key``; it must be present."""
    if key not in state.entries:
        raise PreconditionError(f"cannot remove {key!r}: not in the map")
    return OrMap({}, of_dots(tuple(state.entries[key])))


def merge(a: OrMap, b: OrMap) -> OrMap:
    """Join key-wise: a put survives when both hold it or the other never observed it."""
    if a == b:
        return a
    entries: dict[str, Puts] = {}
    for key in a.entries.keys() | b.entries.keys():
        puts_a, puts_b = a.entries.get(key, {}), b.entries.get(key, {})
        dots = merge_dots(_dots(puts_a), a.context, _dots(puts_b), b.context)
        if dots:
            entries[key] = {d: puts_a[d] if d in puts_a else puts_b[d] for d in dots}
    return OrMap(entries, join(a.context, b.context))


def _dots(puts: Puts) -> Dots:
    return tuple(sorted(puts))


def encode(state: OrMap) -> bytes:
    """Binary form: tag, version, msgpack of key rows with their puts, and the context.

    Rows and puts are sorted so equal states have equal bytes.
    """
    rows = [[key, sorted([r, c, t, v] for (r, c), (t, v) in puts.items())]
            for key, puts in sorted(state.entries.items())]
    return codec.frame(OR_MAP, [rows, encode_context(state.context)])


def decode(data: bytes) -> OrMap:
    """Inverse of ``encode``."""
    body = codec.unframe(OR_MAP, data)
    try:
        rows, ctx_body = body
        entries = {str(key): {(str(r), int(c)): (int(t), v) for r, c, t, v in puts}
                   for key, puts in rows}
        return OrMap(entries, decode_context(ctx_body))
    except (TypeError, ValueError) as exc:
        raise codec.shape_error("OrMap", str(exc)) from exc
