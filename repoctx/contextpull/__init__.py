"""`contextpull` — ContextPull export (writer), conforming reader, and its tools.

The writer turns documents into a ContextPull store (SQLite FTS5, DESIGN §5); the reader
follows seed 000 on any writer's store and never writes; ``tools.json`` declares the
reader's tools and :func:`call_tool` dispatches validated calls to a :class:`Reader`.
"""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from repoctx.contextpull.definitions import SymbolSpan
    from repoctx.contextpull.directory import export_directory
    from repoctx.contextpull.documents import Definition, SourceDocument
    from repoctx.contextpull.extra_rows import ExtraRows, ExtraSink
    from repoctx.contextpull.integrity import check_export
    from repoctx.contextpull.pool import ordered_map
    from repoctx.contextpull.reader import Reader
    from repoctx.contextpull.records import DocumentRows
    from repoctx.contextpull.search import Embedder
    from repoctx.contextpull.store_export import export_store
    from repoctx.contextpull.tools import call_tool, check_arguments, tool_definitions
    from repoctx.contextpull.writer import PREVIOUS_SCHEMA, ExportReport, write_export

__all__ = [
    "Definition",
    "DocumentRows",
    "Embedder",
    "ExportReport",
    "ExtraRows",
    "ExtraSink",
    "PREVIOUS_SCHEMA",
    "Reader",
    "SourceDocument",
    "SymbolSpan",
    "call_tool",
    "check_arguments",
    "check_export",
    "export_directory",
    "export_store",
    "ordered_map",
    "tool_definitions",
    "write_export",
]

export_lazily(__name__, {
    ".definitions": ("SymbolSpan",),
    ".directory": ("export_directory",),
    ".documents": ("Definition", "SourceDocument"),
    ".extra_rows": ("ExtraRows", "ExtraSink"),
    ".integrity": ("check_export",),
    ".pool": ("ordered_map",),
    ".reader": ("Reader",),
    ".records": ("DocumentRows",),
    ".search": ("Embedder",),
    ".store_export": ("export_store",),
    ".tools": ("call_tool", "check_arguments", "tool_definitions"),
    ".writer": ("ExportReport", "PREVIOUS_SCHEMA", "write_export"),
})
