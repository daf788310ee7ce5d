"""vectors — embeddings: the embedder seam, the five vector trees, the back-fill, the
approximate index and semantic hits (seed 003, issue 7).

Sits above memory and below contextpull. Record shapes, one per module:
``payload_record`` (vpay), ``metadata_record`` (vec), ``membership_record`` (vmem),
``coverage`` (vcov), ``index_record`` (vidx). ``backfill`` runs after each reconcile
(``alongside``: in its own process, beside the export); ``semantic_hits`` serves
search; ``fill_embeddings`` fills a ContextPull export.
"""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from . import (
        alongside,
        ann_index,
        bert,
        caught_up,
        chunks,
        coverage,
        index_record,
        ivf,
        membership,
        membership_record,
        metadata_record,
        payload_record,
        settled,
        sources,
        static,
    )
    from .backfill import BackfillReport, backfill
    from .embedder import (
        NONE,
        Embedder,
        EmbedderError,
        NoneEmbedder,
        is_none,
        l2_normalise,
        space_fingerprint,
        space_of,
    )
    from .export import fill_embeddings
    from .minilm import MiniLmEmbedder
    from .semantic import (
        APPROXIMATE,
        EMBEDDER_FAILED,
        EXACT,
        NO_EMBEDDER,
        NO_VECTORS,
        query_embedder,
        semantic_hits,
    )
    from .settings import CHOICES, choose, embedder_named, recorded
    from .static import StaticEmbedder

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
    "ann_index",
    "backfill",
    "bert",
    "caught_up",
    "choose",
    "chunks",
    "coverage",
    "embedder_named",
    "fill_embeddings",
    "index_record",
    "is_none",
    "ivf",
    "l2_normalise",
    "membership",
    "membership_record",
    "metadata_record",
    "payload_record",
    "query_embedder",
    "recorded",
    "semantic_hits",
    "settled",
    "sources",
    "space_fingerprint",
    "space_of",
    "static",
]

export_lazily(__name__, {
    ".backfill": ("BackfillReport", "backfill"),
    ".embedder": ("NONE", "Embedder", "EmbedderError", "NoneEmbedder", "is_none", "l2_normalise",
                  "space_fingerprint", "space_of"),
    ".export": ("fill_embeddings",),
    ".minilm": ("MiniLmEmbedder",),
    ".semantic": ("APPROXIMATE", "EMBEDDER_FAILED", "EXACT", "NO_EMBEDDER", "NO_VECTORS",
                  "query_embedder", "semantic_hits"),
    ".settings": ("CHOICES", "choose", "embedder_named", "recorded"),
    ".static": ("StaticEmbedder",),
}, modules=("alongside", "ann_index", "bert", "caught_up", "chunks", "coverage", "index_record",
            "ivf", "membership", "membership_record", "metadata_record", "payload_record",
            "settled", "sources", "static"))
