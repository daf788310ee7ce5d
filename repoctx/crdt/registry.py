"""crdt/registry — every CRDT module, found by type tag or by state class.

Records hold their fields in binary form; the tag byte says which module decodes
and merges a field, so a record needs no schema to merge. Pure lookups.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any

from repoctx.errors import InvalidEncodingError

from . import tags

_NAMES: dict[int, tuple[str, str]] = {
    tags.LWW_REGISTER: ("lww_register", "LwwRegister"),
    tags.OR_FLAG: ("or_flag", "OrFlag"),
    tags.ADD_WINS_SET: ("add_wins_set", "AddWinsSet"),
    tags.OR_MAP: ("or_map", "OrMap"),
    tags.TTL_SET: ("ttl_set", "TtlSet"),
    tags.MAX_REGISTER: ("max_register", "MaxRegister"),
    tags.TEXT_BODY: ("text_body", "TextBody"),
}
"""Each tag's module and the class of its states."""

_loaded: dict[int, ModuleType] = {}
_BY_STATE: dict[type, ModuleType] = {}


def _load(tag: int) -> ModuleType:
    name, state_class = _NAMES[tag]
    module = importlib.import_module(f"{__package__}.{name}")
    _BY_STATE[getattr(module, state_class)] = module
    _loaded[tag] = module
    return module


class _Modules(Mapping[int, ModuleType]):
    """Tag -> CRDT module, every tag listed, each module imported on its first lookup:
    opening a store and proving a tree unchanged decodes no set, map or text, so a
    no-op ``repoctx index`` imports none of their modules."""

    def __getitem__(self, tag: int) -> ModuleType:
        return _loaded.get(tag) or _load(tag)

    def __iter__(self) -> Iterator[int]:
        return iter(_NAMES)

    def __len__(self) -> int:
        return len(_NAMES)


MODULES: Mapping[int, ModuleType] = _Modules()


def module_for_tag(tag: int) -> ModuleType:
    """The module whose encodings start with ``tag``."""
    module = _loaded.get(tag)
    if module is not None:
        return module
    if tag not in _NAMES:
        raise InvalidEncodingError(f"unknown CRDT type tag {tag}")
    return _load(tag)


def module_for_state(state: Any) -> ModuleType:
    """The module a state belongs to."""
    module = _BY_STATE.get(type(state))
    if module is not None:
        return module
    kind = type(state)
    for tag, (name, state_class) in _NAMES.items():  # a state of a module not looked up yet
        if kind.__module__ == f"{__package__}.{name}" and kind.__name__ == state_class:
            return _load(tag)
    raise InvalidEncodingError(f"{kind.__name__} is not a CRDT state")
