"""vectors/embedders/embedder — the embedder seam: what a text embedder is, and its space.

An embedder has a model name, a dimension and a normalisation; the three together
give the embedding-space fingerprint (``space_fingerprint``). Every vector's metadata
carries its space and the index has one prefix per space, so a vector of one space
is never stored beside, or compared with, a vector of another. ``NONE`` is the
default: no embedder, search stays on the keyword path. Vectors are float32 rows,
L2-normalised when the normalisation is ``"l2"``. Pure (the real model lives in
``minilm``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from repoctx.errors import EmbedderError

if TYPE_CHECKING:  # numpy loads with the first vector: a store without an embedder
    import numpy as np  # never needs it, and `repoctx index` starts ~50 ms sooner

L2 = "l2"
NONE_NAME = "none"


def space_fingerprint(model: str, dim: int, normalisation: str) -> str:
    """The 16-hex-digit identity of an embedding space (model, dimension, normalisation)."""
    import hashlib  # ~2 ms a no-op index without an embedder does without

    text = f"{model}\n{dim}\n{normalisation}".encode()
    return hashlib.sha256(text).hexdigest()[:16]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors of one embedding space."""

    name: str
    """The selectable name (``--embedder``): ``none``, ``minilm``."""
    model: str
    """The model's full name, written to the ContextPull ``embeddings.model`` column."""
    dim: int
    normalisation: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """A ``(len(texts), dim)`` float32 array, one row per text, in order."""
        ...


def space_of(embedder: Embedder) -> str:
    """The fingerprint of the space ``embedder`` writes into."""
    return space_fingerprint(embedder.model, embedder.dim, embedder.normalisation)


def is_none(embedder: Embedder | None) -> bool:
    """True for a missing embedder or the ``none`` embedder."""
    return embedder is None or embedder.name == NONE_NAME


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero), as C-contiguous float32."""
    import numpy as np

    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return np.ascontiguousarray(vectors / np.where(norms == 0, 1, norms), dtype=np.float32)


def float32_bytes(vector: np.ndarray) -> bytes:
    """The vector's little-endian float32 bytes (the payload and export form)."""
    import numpy as np

    return np.asarray(vector, dtype="<f4").tobytes()


def from_bytes(data: bytes) -> np.ndarray:
    """Inverse of ``float32_bytes``."""
    import numpy as np

    return np.frombuffer(data, dtype="<f4").astype(np.float32)


class NoneEmbedder:
    """The default: no embedding space; nothing is embedded, search stays keyword-only."""

    name = NONE_NAME
    model = NONE_NAME
    dim = 0
    normalisation = NONE_NAME

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Refuses: the ``none`` embedder has no space to embed into."""
        raise EmbedderError("the 'none' embedder embeds nothing")


NONE = NoneEmbedder()
