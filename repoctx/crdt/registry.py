"""crdt/registry — every CRDT module, found by type tag or by state class.

Records hold their fields in binary form; the tag byte says which module decodes
and merges a field, so a record needs no schema to merge. Pure lookups.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from repoctx.errors import InvalidEncodingError

from . import add_wins_set, lww_register, max_register, or_flag, or_map, tags, text_body, ttl_set

MODULES: dict[int, ModuleType] = {
    tags.LWW_REGISTER: lww_register,
    tags.OR_FLAG: or_flag,
    tags.ADD_WINS_SET: add_wins_set,
    tags.OR_MAP: or_map,
    tags.TTL_SET: ttl_set,
    tags.MAX_REGISTER: max_register,
    tags.TEXT_BODY: text_body,
}

_BY_STATE: dict[type, ModuleType] = {
    lww_register.LwwRegister: lww_register,
    or_flag.OrFlag: or_flag,
    add_wins_set.AddWinsSet: add_wins_set,
    or_map.OrMap: or_map,
    ttl_set.TtlSet: ttl_set,
    max_register.MaxRegister: max_register,
    text_body.TextBody: text_body,
}


def module_for_tag(tag: int) -> ModuleType:
    """The module whose encodings start with ``tag``."""
    try:
        return MODULES[tag]
    except KeyError:
        raise InvalidEncodingError(f"unknown CRDT type tag {tag}") from None


def module_for_state(state: Any) -> ModuleType:
    """The module a state belongs to."""
    try:
        return _BY_STATE[type(state)]
    except KeyError:
        raise InvalidEncodingError(f"{type(state).__name__} is not a CRDT state") from None
