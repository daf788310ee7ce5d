"""reconcile/nodes — the record shapes the reconcile writes, one module per tree family:
root, file, package, content, symbol, cross-reference and coverage nodes."""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from . import (
        content_record,
        coverage_record,
        fields,
        file_node,
        package_node,
        root_node,
        symbol_record,
        xref_record,
    )

__all__ = [
    "content_record",
    "coverage_record",
    "fields",
    "file_node",
    "package_node",
    "root_node",
    "symbol_record",
    "xref_record",
]

export_lazily(__name__, {
}, modules=("content_record", "coverage_record", "fields", "file_node", "package_node", "root_node",
            "symbol_record", "xref_record"))
