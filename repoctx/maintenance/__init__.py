"""maintenance — check and repair of a store and its export."""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from .check import check_store, check_text
    from .repair import RepairReport, repair

__all__ = [
    "RepairReport",
    "check_store",
    "check_text",
    "repair",
]

export_lazily(__name__, {
    ".check": ("check_store", "check_text"),
    ".repair": ("RepairReport", "repair"),
})
