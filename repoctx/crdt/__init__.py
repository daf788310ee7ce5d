"""crdt — merge-able values: the clock, dots, the CRDT types, records and envelopes.

Imports nothing from repoctx but ``repoctx.errors`` and ``repoctx.lazy``; does no I/O.
Every type module has the same interface (``base.CrdtModule``); ``registry`` finds one
by tag.

The names are imported on first use (``repoctx.lazy``): a no-op ``repoctx index``
imports only the types its store reads (issue 15).
"""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

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

export_lazily(__name__, {
    ".add_wins_set": ("AddWinsSet",),
    ".base": ("CrdtModule",),
    ".clock": ("Clock", "tick_ms", "wall_ms"),
    ".dots": ("CausalContext", "Dot"),
    ".lww_register": ("LwwRegister",),
    ".max_register": ("MaxRegister",),
    ".or_flag": ("OrFlag",),
    ".or_map": ("OrMap",),
    ".record": ("Record",),
    ".registry": ("MODULES", "module_for_state", "module_for_tag"),
    ".text_body": ("TextBody",),
    ".ttl_set": ("TtlSet",),
}, modules=("add_wins_set", "lww_register", "max_register", "or_flag", "or_map", "record",
            "schema", "text_body", "ttl_set"))
