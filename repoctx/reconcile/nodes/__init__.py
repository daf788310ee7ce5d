"""reconcile/nodes — the record shapes the reconcile writes, one module per tree family:
root, file, package, content, symbol, cross-reference and coverage nodes (and
``decl_wire`` and ``links_wire``, the versions of the symbol record's declaration tuple
and of the content record's links)."""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from . import (
        content_record,
        coverage_record,
        decl_wire,
        fields,
        file_node,
        links_wire,
        package_node,
        root_node,
        symbol_record,
        xref_record,
    )

__all__ = [
    "content_record",
    "coverage_record",
    "decl_wire",
    "fields",
    "file_node",
    "links_wire",
    "package_node",
    "root_node",
    "symbol_record",
    "xref_record",
]

export_lazily(__name__, {
}, modules=("content_record", "coverage_record", "decl_wire", "fields", "file_node",
             "links_wire", "package_node", "root_node", "symbol_record", "xref_record"))
