"""crdt — merge-able values: the clock, dots, the CRDT types, records and envelopes.

Imports nothing from repoctx but ``repoctx.errors``; does no I/O. Every type module
has the same interface (``base.CrdtModule``); ``registry`` finds one by tag.
"""

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
