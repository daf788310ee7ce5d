"""retrieval — the read side of the tool surface: search, outline, related, changed,
context bundles, status. Every tool works on a ``Workspace``."""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from .bundle.context import context
    from .bundle.rank import Candidate, Ranker, default_rank, reader_rank
    from .bundle.receipts import receipt
    from .bundle.wire import dumps, seal
    from .index.export_extras import export_extras
    from .index.export_refresh import EXPORT_NAME, refresh_export
    from .index.tables import build_search_index, has_search_index
    from .workspace import Workspace, open_workspace

__all__ = [
    "Candidate",
    "EXPORT_NAME",
    "Ranker",
    "Workspace",
    "build_search_index",
    "context",
    "default_rank",
    "dumps",
    "export_extras",
    "has_search_index",
    "open_workspace",
    "reader_rank",
    "receipt",
    "refresh_export",
    "seal",
]

export_lazily(__name__, {
    ".bundle.context": ("context",),
    ".bundle.rank": ("Candidate", "Ranker", "default_rank", "reader_rank"),
    ".index.export_extras": ("export_extras",),
    ".index.export_refresh": ("EXPORT_NAME", "refresh_export"),
    ".bundle.receipts": ("receipt",),
    ".index.tables": ("build_search_index", "has_search_index"),
    ".bundle.wire": ("dumps", "seal"),
    ".workspace": ("Workspace", "open_workspace"),
})
