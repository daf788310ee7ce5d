"""vectors — embeddings: the embedder seam, the five vector trees, the back-fill, the
approximate index and semantic hits (seed 003).

Sits above memory and below contextpull. Record shapes, one per module:
``payload_record`` (vpay), ``metadata_record`` (vec), ``membership_record`` (vmem),
``coverage`` (vcov), ``index_record`` (vidx). ``backfill`` runs after each reconcile
(``alongside``: in its own process, beside the export); ``semantic_hits`` serves
search; ``fill_embeddings`` fills a ContextPull export.
"""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from . import alongside, ann, caught_up, chunks, embedders, records, settled, sources
    from .backfill import BackfillReport, backfill
    from .embedders.embedder import (
        NONE,
        Embedder,
        EmbedderError,
        NoneEmbedder,
        is_none,
        l2_normalise,
        space_fingerprint,
        space_of,
    )
    from .embedders.minilm import MiniLmEmbedder
    from .embedders.settings import CHOICES, choose, embedder_named, recorded
    from .embedders.static import StaticEmbedder
    from .export import fill_embeddings
    from .semantic import (
        APPROXIMATE,
        EMBEDDER_FAILED,
        EXACT,
        NO_EMBEDDER,
        NO_VECTORS,
        query_embedder,
        semantic_hits,
    )

__all__ = [
    "APPROXIMATE",
    "BackfillReport",
    "CHOICES",
    "EMBEDDER_FAILED",
    "EXACT",
    "Embedder",
    "EmbedderError",
    "MiniLmEmbedder",
    "NONE",
    "NO_EMBEDDER",
    "NO_VECTORS",
    "NoneEmbedder",
    "StaticEmbedder",
    "alongside",
    "ann",
    "backfill",
    "caught_up",
    "choose",
    "chunks",
    "embedder_named",
    "embedders",
    "fill_embeddings",
    "is_none",
    "l2_normalise",
    "query_embedder",
    "recorded",
    "records",
    "semantic_hits",
    "settled",
    "sources",
    "space_fingerprint",
    "space_of",
]

export_lazily(__name__, {
    ".backfill": ("BackfillReport", "backfill"),
    ".embedders.embedder": ("NONE", "Embedder", "EmbedderError", "NoneEmbedder", "is_none",
                            "l2_normalise", "space_fingerprint", "space_of"),
    ".export": ("fill_embeddings",),
    ".embedders.minilm": ("MiniLmEmbedder",),
    ".semantic": ("APPROXIMATE", "EMBEDDER_FAILED", "EXACT", "NO_EMBEDDER", "NO_VECTORS",
                  "query_embedder", "semantic_hits"),
    ".embedders.settings": ("CHOICES", "choose", "embedder_named", "recorded"),
    ".embedders.static": ("StaticEmbedder",),
}, modules=("alongside", "ann", "caught_up", "chunks", "embedders", "records",
            "settled", "sources"))
