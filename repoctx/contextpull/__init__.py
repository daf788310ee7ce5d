"""`contextpull` — ContextPull export (writer), conforming reader, and its tools.

The writer turns documents into a ContextPull store (SQLite FTS5, DESIGN §5); the reader
follows seed 000 on any writer's store and never writes; ``tools.json`` declares the
reader's tools and :func:`call_tool` dispatches validated calls to a :class:`Reader`.
"""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from repoctx.contextpull.integrity import check_export
    from repoctx.contextpull.read.reader import Reader
    from repoctx.contextpull.read.search import Embedder
    from repoctx.contextpull.read.tools import call_tool, check_arguments, tool_definitions
    from repoctx.contextpull.sections.definitions import SymbolSpan
    from repoctx.contextpull.sections.documents import Definition, SourceDocument
    from repoctx.contextpull.write.directory import export_directory
    from repoctx.contextpull.write.extra_rows import ExtraRows, ExtraSink
    from repoctx.contextpull.write.pool import ordered_map
    from repoctx.contextpull.write.records import DocumentRows
    from repoctx.contextpull.write.store_export import export_store
    from repoctx.contextpull.write.writer import PREVIOUS_SCHEMA, ExportReport, write_export

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
    ".sections.definitions": ("SymbolSpan",),
    ".write.directory": ("export_directory",),
    ".sections.documents": ("Definition", "SourceDocument"),
    ".write.extra_rows": ("ExtraRows", "ExtraSink"),
    ".integrity": ("check_export",),
    ".write.pool": ("ordered_map",),
    ".read.reader": ("Reader",),
    ".write.records": ("DocumentRows",),
    ".read.search": ("Embedder",),
    ".write.store_export": ("export_store",),
    ".read.tools": ("call_tool", "check_arguments", "tool_definitions"),
    ".write.writer": ("ExportReport", "PREVIOUS_SCHEMA", "write_export"),
})
