"""retrieval — the read side of the tool surface: search, outline, related, changed,
context bundles, status. Every tool works on a ``Workspace``."""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from .context import context
    from .context_rank import Candidate, Ranker, default_rank, reader_rank
    from .export_extras import export_extras
    from .export_refresh import EXPORT_NAME, refresh_export
    from .integrity import check_store, check_text
    from .receipts import receipt
    from .repair import RepairReport, repair
    from .search import refresh_index, search
    from .search_index import build_search_index, has_search_index
    from .wire import dumps, seal
    from .workspace import Workspace, open_workspace

__all__ = [
    "Candidate",
    "EXPORT_NAME",
    "Ranker",
    "RepairReport",
    "Workspace",
    "build_search_index",
    "check_store",
    "check_text",
    "context",
    "default_rank",
    "dumps",
    "export_extras",
    "has_search_index",
    "open_workspace",
    "reader_rank",
    "receipt",
    "refresh_export",
    "refresh_index",
    "repair",
    "seal",
    "search",
]

export_lazily(__name__, {
    ".context": ("context",),
    ".context_rank": ("Candidate", "Ranker", "default_rank", "reader_rank"),
    ".export_extras": ("export_extras",),
    ".export_refresh": ("EXPORT_NAME", "refresh_export"),
    ".integrity": ("check_store", "check_text"),
    ".receipts": ("receipt",),
    ".repair": ("RepairReport", "repair"),
    ".search": ("refresh_index", "search"),
    ".search_index": ("build_search_index", "has_search_index"),
    ".wire": ("dumps", "seal"),
    ".workspace": ("Workspace", "open_workspace"),
})
