"""crdt/record — a record: named CRDT fields merged field by field.

A record keeps each field in its binary form (``{name: encoded}``): a merge only decodes
the fields whose bytes differ, so the common read-merge-write of a mostly unchanged
record costs a byte comparison per field (registers merge on their bytes; a type may
offer ``merge_encoded`` and ``holds_empty`` that work on its encoding). Three meta
fields, named with a leading ``$``, ride along: ``$tick`` (max register of the ticks
that wrote the record, its age for compaction), ``$expires`` (optional expiry, epoch ms,
only moves later) and ``$key`` (the full key of a record whose LMDB key had to be
hashed). A record is a tombstone when every non-meta field reads as its type's empty
value. The encoding is a msgpack map sorted by field name, so equal records have equal
bytes: ``write`` and ``merge`` keep ``fields`` in name order and ``encode`` relies on
it. Pure; no I/O. Equality is structural.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

from repoctx.errors import InvalidEncodingError

from . import codec, lww_register, max_register, tags
from .registry import module_for_state, module_for_tag

__all__ = [
    "EXPIRES",
    "KEY",
    "TICK",
    "Record",
    "decode",
    "empty",
    "encode",
    "expires_ms",
    "field_state",
    "full_key",
    "is_tombstone",
    "merge",
    "tick",
    "validate",
    "value",
    "write",
]

TICK = "$tick"
EXPIRES = "$expires"
KEY = "$key"


@dataclass(slots=True)
class Record:
    """Field name -> the field's CRDT state in binary form.

    Never changed once built, like every state here, but not declared ``frozen``: a
    frozen dataclass takes twice as long to build, and a store write builds two records
    (the decoded one, the merge). Frozen would be shallow anyway: ``fields`` is a dict.
    """

    fields: dict[str, bytes]


EMPTY = Record({})


def empty() -> Record:
    """The record with no fields."""
    return EMPTY


def value(rec: Record) -> dict[str, Any]:
    """Every field's plain value, meta fields included."""
    return {name: _module(raw).value(_module(raw).decode(raw)) for name, raw in rec.fields.items()}


def field_state(rec: Record | None, name: str, module: ModuleType) -> Any:
    """The decoded state of one field, or ``module.empty()`` when the record lacks it."""
    raw = None if rec is None else rec.fields.get(name)
    return module.empty() if raw is None else module.decode(raw)


def write(states: Mapping[str, Any], at_tick: int) -> Record:
    """Delta record carrying ``states`` (each a CRDT state or delta) written at ``at_tick``."""
    fields = {name: module_for_state(s).encode(s) for name, s in states.items()}
    fields[TICK] = max_register.encode(max_register.MaxRegister(at_tick))
    return Record(dict(sorted(fields.items())))


def merge(a: Record, b: Record) -> Record:
    """Field-wise merge; identical fields are kept without decoding.

    Returns ``a`` itself when ``b`` adds nothing, so a caller can tell a no-op merge by
    identity instead of comparing every field.
    """
    fields = a.fields
    merged = None
    added = False
    for name, raw_b in b.fields.items():
        raw_a = fields.get(name)
        if raw_a is None:
            new = raw_b
            added = True
        elif raw_a[0] == raw_b[0] in _BYTE_ORDERED:
            # Registers (the common case) inline: their merge is the larger encoding.
            if raw_b <= raw_a:
                continue
            new = raw_b
        elif raw_a == raw_b:
            continue
        else:
            new = _merge_field(raw_a, raw_b)
            if new == raw_a:
                continue
        if merged is None:
            merged = dict(fields)
        merged[name] = new
    if merged is None:
        return a
    return Record(dict(sorted(merged.items())) if added else merged)


# Registers encode byte-ordered: the larger encoding is the merge, no decoding needed.
_BYTE_ORDERED = frozenset({tags.LWW_REGISTER, tags.MAX_REGISTER})


def _merge_field(raw_a: bytes, raw_b: bytes) -> bytes:
    """Merge two encodings of a field that are not both registers (see ``merge``)."""
    if raw_a[0] != raw_b[0]:
        # Two types under one name only happens after a schema change gone wrong;
        # a fixed byte order keeps the merge deterministic instead of raising.
        return max(raw_a, raw_b)
    return _merge_encoded(raw_a[0])(raw_a, raw_b)


def is_tombstone(rec: Record) -> bool:
    """True when every non-meta field holds its type's empty value."""
    for name, raw in rec.fields.items():
        if name[:1] != "$" and not _holds_empty(raw[0])(raw):
            return False
    return True


# A type's cheaper paths on its encoding, looked up once per type tag (they ran once per
# field of every record read); a type without one answers through its states.
@cache
def _merge_encoded(tag: int) -> Callable[[bytes, bytes], bytes]:
    module = module_for_tag(tag)
    return getattr(module, "merge_encoded", None) or (
        lambda a, b: module.encode(module.merge(module.decode(a), module.decode(b))))


@cache
def _holds_empty(tag: int) -> Callable[[bytes], bool]:
    module = module_for_tag(tag)
    return getattr(module, "holds_empty", None) or (
        lambda raw: module.value(module.decode(raw)) == module.value(module.empty()))


def tick(rec: Record) -> int:
    """The latest tick that wrote this record (0 when unknown)."""
    return field_state(rec, TICK, max_register).value or 0


def expires_ms(rec: Record) -> int | None:
    """The record's expiry in epoch milliseconds, or ``None`` when it never expires."""
    return field_state(rec, EXPIRES, max_register).value


def full_key(rec: Record) -> str | None:
    """The full key stored on a record whose LMDB key was hashed."""
    return field_state(rec, KEY, lww_register).value


def encode(rec: Record) -> bytes:
    """Canonical msgpack map of the encoded fields (already in name order)."""
    return codec.pack_fields(rec.fields)


def decode(data: bytes) -> Record:
    """Inverse of ``encode``. Checks the map's shape; a bad field surfaces when decoded."""
    return Record(codec.unpack_fields(data))


def validate(rec: Record) -> None:
    """Decode every field once, raising ``InvalidEncodingError`` on the first bad one."""
    for name, raw in rec.fields.items():
        if not isinstance(name, str) or not isinstance(raw, bytes) or len(raw) < 2:
            raise InvalidEncodingError(f"field {name!r} is not an encoded CRDT")
        try:
            _module(raw).decode(raw)
        except InvalidEncodingError as exc:
            raise InvalidEncodingError(f"field {name!r}: {exc}") from exc


def _module(raw: bytes) -> ModuleType:
    return module_for_tag(raw[0])
