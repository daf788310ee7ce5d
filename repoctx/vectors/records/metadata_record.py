"""vectors/records/metadata_record — vector metadata at ``repo/{id}/vec/{vectorId}``.

A vector id is ``{space}/{sourceId}#{ordinal}``: the space first, so one space's
vectors are one key range and two spaces never share a key; the ordinal numbers the
chunks of a source from 0. Fields are last-writer-wins registers: ``source`` (the key
of the source's record), ``sourceId``, ``address`` (of the payload), ``space``,
``span`` (``[start, end]``: characters of a file body, lines of a symbol) and ``attrs``
(kind, path, version of the source, ordinal, and for symbols the symbol kind).
Retiring writes None everywhere: the record becomes a tombstone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from repoctx.crdt import lww_register, record
from repoctx.crdt.record import Record
from repoctx.trees import make_key

FAMILY = "vec"
FIELDS = ("source", "sourceId", "address", "space", "span", "attrs")


@dataclass(frozen=True, slots=True)
class VectorMeta:
    """What the store says of one vector."""

    vector_id: str
    source: str
    source_id: str
    address: str
    space: str
    span: tuple[int, int]
    attrs: dict[str, Any]


def vector_id(space: str, sid: str, ordinal: int) -> str:
    """``{space}/{sourceId}#{ordinal}``."""
    return f"{space}/{sid}#{ordinal}"


def metadata_key(repo_id: str, vid: str) -> str:
    """``repo/{repoId}/vec/{vectorId}``."""
    return make_key(repo_id, FAMILY, vid)


def space_prefix(repo_id: str, space: str) -> str:
    """The key prefix of every vector of ``space``."""
    return make_key(repo_id, FAMILY, f"{space}/")


def meta_delta(current: Record | None, meta: VectorMeta, tick: int, replica: str,
               ) -> Record | None:
    """Delta making the stored metadata equal ``meta`` (None when it already does)."""
    values = {"source": meta.source, "sourceId": meta.source_id, "address": meta.address,
              "space": meta.space, "span": list(meta.span), "attrs": meta.attrs}
    return _delta(current, values, tick, replica)


def retire_delta(current: Record | None, tick: int, replica: str) -> Record | None:
    """Delta retiring the vector (every field None), or None when already retired."""
    return _delta(current, dict.fromkeys(FIELDS), tick, replica)


def meta_of(vid: str, rec: Record | None) -> VectorMeta | None:
    """The view of a stored record; None for a missing or retired one."""
    values = {name: record.field_state(rec, name, lww_register).value for name in FIELDS}
    if values["address"] is None:
        return None
    span = tuple(values["span"] or (0, 0))
    return VectorMeta(vid, values["source"], values["sourceId"], values["address"],
                      values["space"], (int(span[0]), int(span[1])), dict(values["attrs"] or {}))


def _delta(current: Record | None, values: dict[str, Any], tick: int, replica: str,
           ) -> Record | None:
    if current is None:  # a first write (a cold back-fill): every value that is set
        changed = {name: lww_register.set_value(lww_register.EMPTY, value, tick, replica)
                   for name, value in values.items() if value is not None}
        return record.write(changed, tick) if changed else None
    changed = {}
    for name, value in values.items():
        if _plain(record.field_state(current, name, lww_register).value) != _plain(value):
            changed[name] = lww_register.set_value(lww_register.EMPTY, value, tick, replica)
    return record.write(changed, tick) if changed else None


def _plain(value: Any) -> Any:
    """Lists and tuples compare alike (msgpack decodes arrays as tuples)."""
    if isinstance(value, list | tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
