"""crdt/add_wins_set — add-wins observed-remove set (an optimised OR-set).

State: element -> the dots of its adds in force, plus the causal context observed.
An add tags the element with a fresh dot; a remove drops only the dots it observed,
so an add made concurrently elsewhere survives ("add wins"). Elements are strings,
so the canonical encoding can sort them. Pure; no I/O. References: Bieniusa et al.,
"An optimized conflict-free replicated set" (2012); Almeida, Shoker, Baquero (2018),
§7.2 (add-wins set over a dot map).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from repoctx.errors import PreconditionError

from . import codec
from .dots import (
    EMPTY_CONTEXT,
    CausalContext,
    Dot,
    Dots,
    decode_context,
    disjoint,
    encode_context,
    join,
    join_encoded,
    merge_dots,
    next_dot,
    of_dots,
)
from .tags import ADD_WINS_SET, FORMAT_VERSION

__all__ = [
    "AddWinsSet",
    "add",
    "add_all",
    "decode",
    "empty",
    "encode",
    "merge",
    "merge_encoded",
    "remove",
    "remove_all",
    "value",
]


@dataclass(frozen=True, slots=True)
class AddWinsSet:
    """Elements with the dots of their live adds, and the context they were judged against."""

    entries: dict[str, Dots] = field(default_factory=dict)
    context: CausalContext = EMPTY_CONTEXT


EMPTY = AddWinsSet()
_first = itemgetter(0)
_STR, _TUPLE = {str}, {tuple}
if TYPE_CHECKING:
    import msgspec

_HEADER = bytes((ADD_WINS_SET, FORMAT_VERSION))
# A body ``[entries, context]`` with each entry left encoded, and an entry's element.
_WIRE_DOTS = tuple[tuple[str, int], ...]


@cache
def _raw_codecs() -> tuple[Any, Any, Any, type[Exception]]:
    """Decoders of a body and of one entry keeping entries ``Raw``, an encoder writing a
    ``Raw`` as its bytes, and msgspec's decode error (built on first use: a command that
    merges no set need not import msgspec)."""
    import msgspec

    return (msgspec.msgpack.Decoder(
                tuple[tuple[msgspec.Raw, ...], tuple[_WIRE_DOTS, _WIRE_DOTS]]),
            msgspec.msgpack.Decoder(tuple[str, msgspec.Raw]), msgspec.msgpack.Encoder(),
            msgspec.DecodeError)  # fmt: skip


def empty() -> AddWinsSet:
    """The set nobody added to."""
    return EMPTY


def value(state: AddWinsSet) -> frozenset[str]:
    """The elements present."""
    return frozenset(state.entries)


def add(state: AddWinsSet, element: str, replica: str) -> AddWinsSet:
    """Delta that adds ``element`` with a fresh dot, superseding its observed adds."""
    return add_all(state, (element,), replica)


def add_all(state: AddWinsSet, elements: Iterable[str], replica: str) -> AddWinsSet:
    """Delta that adds every element, each with its own fresh dot (one delta, not many)."""
    replica_id, counter = next_dot(state.context, replica)
    entries: dict[str, Dots] = {}
    observed: list[Dot] = []
    for element in sorted(set(elements)):
        if not isinstance(element, str):
            raise PreconditionError(f"set elements are strings, not {type(element).__name__}")
        entries[element] = ((replica_id, counter),)
        observed += (*state.entries.get(element, ()), (replica_id, counter))
        counter += 1
    return AddWinsSet(entries, of_dots(observed))


def remove(state: AddWinsSet, element: str) -> AddWinsSet:
    """Delta that removes the observed adds of ``element``; it must be present."""
    return remove_all(state, (element,))


def remove_all(state: AddWinsSet, elements: Iterable[str]) -> AddWinsSet:
    """Delta that removes the observed adds of every element; each must be present."""
    observed: list[Dot] = []
    for element in set(elements):
        dots = state.entries.get(element)
        if dots is None:
            raise PreconditionError(f"cannot remove {element!r}: not in the set")
        observed += dots
    return AddWinsSet({}, of_dots(observed))


def merge(a: AddWinsSet, b: AddWinsSet) -> AddWinsSet:
    """Join element-wise over dots, then unite the contexts."""
    if a == b:
        return a
    context = join(a.context, b.context)
    if disjoint(a.context, b.context):
        entries = {**a.entries, **b.entries}
        for element in a.entries.keys() & b.entries.keys():
            entries[element] = tuple(sorted({*a.entries[element], *b.entries[element]}))
        return AddWinsSet(entries, context)
    entries = {}
    get_a, get_b = a.entries.get, b.entries.get
    for element in a.entries.keys() | b.entries.keys():
        dots = merge_dots(get_a(element, ()), a.context, get_b(element, ()), b.context)
        if dots:
            entries[element] = dots
    return AddWinsSet(entries, context)


def merge_encoded(a: bytes, b: bytes) -> bytes:
    """``encode(merge(decode(a), decode(b)))``, cheaper for an add into a stored set.

    Records hold fields encoded, so this is how they merge a set. The common case, new
    elements added under dots the larger side never observed, is spliced into that
    side's bytes: its entries are copied, not built into a state and packed again.
    """
    spliced = _splice(a, b) if len(a) >= len(b) else _splice(b, a)
    return encode(merge(decode(a), decode(b))) if spliced is None else spliced


def _splice(data: bytes, other: bytes) -> bytes | None:
    """The merge of ``data`` and ``other`` when ``other`` only brings new elements under
    dots ``data`` never observed (then it is a plain union), else None.

    The entries stay encoded, one ``Raw`` each (``msgspec`` finds where each ends without
    building it); only the elements a binary search visits are decoded, and the merged
    entries are written back byte for byte. Only the contexts are checked in full: a
    malformed entry makes this return None (``decode`` then says what is wrong) or is
    carried along unchanged, still refused by the next ``decode``.
    """
    if data[:2] != _HEADER or other[:2] != _HEADER:
        return None  # ``decode`` says what is wrong
    entries_decoder, _, raw_encoder, decode_error = _raw_codecs()
    try:
        entries, ctx_body = entries_decoder.decode(data[2:])
        new_entries, new_ctx_body = entries_decoder.decode(other[2:])
        if not new_entries:
            return None
        context = join_encoded(ctx_body, new_ctx_body)
        if context is None:
            return None  # a dot on both sides (a remove, a re-add): the full merge
        merged = list(entries)
        for entry in new_entries:
            element = _element_of(entry)
            at = bisect_left(merged, element, key=_element_of)
            if at < len(merged) and _element_of(merged[at]) == element:
                return None  # on both sides: its dots need a union
            merged.insert(at, entry)
    except (decode_error, TypeError, ValueError):
        return None
    return _HEADER + raw_encoder.encode((merged, context))


def _element_of(entry: msgspec.Raw) -> str:
    """The element of one encoded entry ``[element, dots]``."""
    return _raw_codecs()[1].decode(entry)[0]


def encode(state: AddWinsSet) -> bytes:
    """Binary form: tag, version, msgpack ``[[[element, dots]...sorted], context]``."""
    body = (sorted(state.entries.items(), key=_first), encode_context(state.context))
    return codec.frame(ADD_WINS_SET, body)


def decode(data: bytes) -> AddWinsSet:
    """Inverse of ``encode``."""
    body = codec.unframe(ADD_WINS_SET, data)
    try:
        entries_body, ctx_body = body
        entries = dict(entries_body)
        # Type sets rather than a per-element loop (decoding is on every read-merge-write);
        # the dot shape is checked on each element's first dot, an empty dot set fails there.
        if not {*map(type, entries)} <= _STR or not {*map(type, entries.values())} <= _TUPLE:
            raise ValueError("an element is a string with a non-empty dot set")
        if not {*map(type, map(_first, entries.values()))} <= _TUPLE:
            raise ValueError("a dot is (replica, counter)")
        return AddWinsSet(entries, decode_context(ctx_body))
    except IndexError as exc:
        raise codec.shape_error("AddWinsSet", "an element has an empty dot set") from exc
    except (TypeError, ValueError) as exc:
        raise codec.shape_error("AddWinsSet", str(exc)) from exc
