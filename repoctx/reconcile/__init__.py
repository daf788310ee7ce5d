"""reconcile — walk, change detection, projections and the batched, resumable pass.

Record shapes of the trees the reconcile owns live one per module: ``file_node``,
``package_node``, ``root_node`` (structural tree), ``content_record``,
``symbol_record`` and ``xref_record``.
"""

from . import content_record, file_node, package_node, root_node, symbol_record, xref_record
from .file_node import FileNode
from .lock import writer_lock
from .reconcile_pass import PassOptions, reconcile_pass
from .report import PassReport
from .symbol_record import Declaration
from .walk import Walk, walk
from .xref import snake

__all__ = [
    "Declaration",
    "FileNode",
    "PassOptions",
    "PassReport",
    "Walk",
    "content_record",
    "file_node",
    "package_node",
    "reconcile_pass",
    "root_node",
    "snake",
    "symbol_record",
    "walk",
    "writer_lock",
    "xref_record",
]
