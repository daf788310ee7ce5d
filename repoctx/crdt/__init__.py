"""crdt — merge-able values: the clock, dots, the CRDT types, records and envelopes.

Imports nothing from repoctx but ``repoctx.errors``; does no I/O. Every type module
has the same interface (``base.CrdtModule``); ``registry`` finds one by tag.

The names are imported on first use (``__getattr__``, as ``repoctx.lazy`` does for the
other packages, which this one may not import): a no-op ``repoctx index`` imports only
the types its store reads.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import (
        add_wins_set,
        lww_register,
        max_register,
        or_flag,
        or_map,
        record,
        schema,
        text_body,
        ttl_set,
    )
    from .add_wins_set import AddWinsSet
    from .base import CrdtModule
    from .clock import Clock, tick_ms, wall_ms
    from .dots import CausalContext, Dot
    from .lww_register import LwwRegister
    from .max_register import MaxRegister
    from .or_flag import OrFlag
    from .or_map import OrMap
    from .record import Record
    from .registry import MODULES, module_for_state, module_for_tag
    from .text_body import TextBody
    from .ttl_set import TtlSet

__all__ = [
    "AddWinsSet",
    "CausalContext",
    "Clock",
    "CrdtModule",
    "Dot",
    "LwwRegister",
    "MODULES",
    "MaxRegister",
    "OrFlag",
    "OrMap",
    "Record",
    "TextBody",
    "TtlSet",
    "add_wins_set",
    "lww_register",
    "max_register",
    "module_for_state",
    "module_for_tag",
    "or_flag",
    "or_map",
    "record",
    "schema",
    "text_body",
    "tick_ms",
    "ttl_set",
    "wall_ms",
]

_EXPORTS = {
    "AddWinsSet": ".add_wins_set",
    "CrdtModule": ".base",
    "Clock": ".clock", "tick_ms": ".clock", "wall_ms": ".clock",
    "CausalContext": ".dots", "Dot": ".dots",
    "LwwRegister": ".lww_register",
    "MaxRegister": ".max_register",
    "OrFlag": ".or_flag",
    "OrMap": ".or_map",
    "Record": ".record",
    "MODULES": ".registry", "module_for_state": ".registry", "module_for_tag": ".registry",
    "TextBody": ".text_body",
    "TtlSet": ".ttl_set",
}
"""Each exported name (not a submodule) by the submodule defining it."""


def __getattr__(name: str) -> Any:
    """An exported name or submodule, imported on its first read and kept."""
    where = _EXPORTS.get(name)
    if where is None and name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(where or f".{name}", __name__)
    value = getattr(module, name) if where else module
    globals()[name] = value
    return value
