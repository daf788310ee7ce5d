"""trees/codec — stored bytes <-> records for a given tree (schema envelope included).

Raises ``CorruptRecordError`` naming the tree and key when bytes do not decode.
"""

from __future__ import annotations

from repoctx.crdt import record, schema
from repoctx.crdt.record import Record
from repoctx.errors import CorruptRecordError, CrdtError

from .spec import TreeSpec


def decode(spec: TreeSpec, key: str, raw: bytes) -> Record:
    """The record stored under ``key`` in ``spec``'s tree."""
    try:
        if spec.envelope is not None:
            return schema.unwrap(raw, *spec.envelope)
        return record.decode(raw)
    except CrdtError as exc:
        raise CorruptRecordError(spec.name, key, str(exc)) from exc


def encode(spec: TreeSpec, rec: Record) -> bytes:
    """The bytes stored for ``rec`` in ``spec``'s tree."""
    if spec.envelope is not None:
        return schema.wrap(rec, *spec.envelope)
    return record.encode(rec)
