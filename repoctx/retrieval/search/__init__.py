"""retrieval/search — query understanding, candidates, ranking and fusion behind
``repocontext_search``."""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from .hits import refresh_index, search

__all__ = ["refresh_index", "search"]

export_lazily(__name__, {".hits": ("refresh_index", "search")})
