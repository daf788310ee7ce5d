"""reconcile — walk, change detection, projections and the batched, resumable pass.

Record shapes of the trees the reconcile owns live one per module: ``file_node``,
``package_node``, ``root_node`` (structural tree), ``content_record``,
``symbol_record``, ``xref_record`` and ``coverage_record``.
"""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from . import nodes
    from .coverage_marker import coverage_marker_key
    from .event_filter import EventFilter
    from .lock import is_locked, repair_lock, writer_lock, writers_lock
    from .nodes.file_node import FileNode
    from .nodes.symbol_record import Declaration, declarations_of
    from .reconcile_pass import PassOptions, reconcile_pass
    from .report import PassReport
    from .status import read_status, write_status
    from .walk import Walk, is_binary, walk
    from .walk_cache import walk_again
    from .xref import edges, snake

__all__ = [
    "Declaration",
    "EventFilter",
    "FileNode",
    "PassOptions",
    "PassReport",
    "Walk",
    "coverage_marker_key",
    "declarations_of",
    "edges",
    "is_binary",
    "is_locked",
    "nodes",
    "read_status",
    "reconcile_pass",
    "repair_lock",
    "snake",
    "walk",
    "walk_again",
    "write_status",
    "writer_lock",
    "writers_lock",
]

export_lazily(__name__, {
    ".coverage_marker": ("coverage_marker_key",),
    ".event_filter": ("EventFilter",),
    ".nodes.file_node": ("FileNode",),
    ".lock": ("is_locked", "repair_lock", "writer_lock", "writers_lock"),
    ".reconcile_pass": ("PassOptions", "reconcile_pass"),
    ".report": ("PassReport",),
    ".status": ("read_status", "write_status"),
    ".nodes.symbol_record": ("Declaration", "declarations_of"),
    ".walk": ("Walk", "is_binary", "walk"),
    ".walk_cache": ("walk_again",),
    ".xref": ("edges", "snake"),
}, modules=("nodes",))
