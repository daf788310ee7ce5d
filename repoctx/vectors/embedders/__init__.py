"""vectors/embedders — the embedder seam, the embedders (static, MiniLM) and which one
a store uses."""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from . import bert, embedder, minilm, settings, static

__all__ = [
    "bert",
    "embedder",
    "minilm",
    "settings",
    "static",
]

export_lazily(__name__, {
}, modules=("bert", "embedder", "minilm", "settings", "static"))
