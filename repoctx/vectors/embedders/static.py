"""vectors/embedders/static — static token embeddings distilled locally from a packaged BERT.

The ``static`` embedder gives a text the sum of its word pieces' vectors, L2-normalised:
no network, no torch, thousands of texts a second. The table is distilled from the
all-MiniLM-L6-v2 weights an installed package ships (model2vec's recipe, run here with
the numpy encoder of ``bert``): every vocabulary piece goes through the transformer once
as ``[CLS] piece [SEP]``, the three outputs are mean-pooled, the table is centred and
rotated onto its principal axes (PCA, keeping ``dim`` of them), and each row is scaled
by a smooth inverse frequency weight ``a / (a + p(rank))`` with ``p`` Zipf's law over the
vocabulary order, so frequent pieces ("the", "self", ".") count for little.

Distilling takes a minute or two on one core, once per machine: the table (float16,
``vocab × dim``) is cached under ``$REPOCTX_MODEL_CACHE``, else
``$XDG_CACHE_HOME/repoctx``, else ``~/.cache/repoctx``, named by a fingerprint of the
weights and the recipe; one process distils while others wait on a lock file, and the
table is written to a temporary name and renamed into place, so a reader never sees a
partial file and a killed distillation leaves nothing behind.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from repoctx.vectors.embedders.embedder import L2, EmbedderError, l2_normalise

if TYPE_CHECKING:  # numpy and the encoder load with the first text embedded: naming the
    import numpy as np  # space (a settled no-op back-fill) needs neither

    from repoctx.vectors.embedders.bert import Bert, WordPiece

NAME = "static"
DIM = 256
SIF = 1e-3
RECIPE = 1
"""Bumped when the distillation changes, so an old cached table is not reused."""
CACHE_ENV = "REPOCTX_MODEL_CACHE"
_BATCH = 512
Progress = Callable[[int, int], None]
"""``progress(done, total)``: vocabulary pieces distilled so far, of all."""


def cache_dir() -> Path:
    """Where distilled tables are kept (created on demand): ``$REPOCTX_MODEL_CACHE``, else
    repoctx's cache folder (``tokenizer.cache_dir``)."""
    from repoctx.tokenizer import cache_dir as repoctx_cache

    explicit = os.environ.get(CACHE_ENV)
    return Path(explicit) if explicit else repoctx_cache()


def weights_fingerprint(directory: Path) -> str:
    """16 hex digits naming the weights: the safetensors header and size, and the vocab."""
    weights = directory / "model.safetensors"
    with weights.open("rb") as fh:
        head = fh.read(1 << 16)
    digest = hashlib.sha256(head + str(weights.stat().st_size).encode())
    digest.update((directory / "vocab.txt").read_bytes())
    return digest.hexdigest()[:16]


def distil(bert: Bert, dim: int = DIM, sif: float = SIF,
           progress: Progress | None = None) -> np.ndarray:
    """The ``(vocab, dim)`` float32 static table of ``bert`` (see the module docstring)."""
    return reduce(piece_outputs(bert, progress), dim, sif)


def piece_outputs(bert: Bert, progress: Progress | None = None) -> np.ndarray:
    """``(vocab, hidden)``: each piece's mean-pooled output as ``[CLS] piece [SEP]``."""
    import numpy as np

    tok = bert.tokenizer
    vocab = len(tok.pieces)
    raw = np.zeros((vocab, bert.dim), dtype=np.float32)
    for start in range(0, vocab, _BATCH):
        ids = range(start, min(start + _BATCH, vocab))
        raw[start:start + len(ids)] = bert.encode_ids([[tok.cls, i, tok.sep] for i in ids])
        if progress is not None:
            progress(start + len(ids), vocab)
    return raw


def reduce(raw: np.ndarray, dim: int, sif: float | None, pca: bool = True) -> np.ndarray:
    """Centre, project on the top ``dim`` principal axes, weight rows by SIF over Zipf
    (``pca=False`` keeps the raw outputs; ``sif=None`` leaves every row's weight 1)."""
    import numpy as np

    if not pca:
        table = raw[:, :dim]
    else:
        centred = raw - raw.mean(axis=0)
        _, _, axes = np.linalg.svd(centred[::3].astype(np.float64), full_matrices=False)
        table = centred @ axes[:dim].T.astype(np.float32)
    if sif is None:
        return table.astype(np.float32)
    rank = np.arange(1, len(table) + 1, dtype=np.float64)
    p = 1.0 / (rank * np.log(len(table)))  # Zipf: p(r) ~ 1 / (r ln V)
    return (table * (sif / (sif + p))[:, None]).astype(np.float32)


def table_path(directory: Path, dim: int = DIM) -> Path:
    """Where the distilled table for the weights in ``directory`` is cached."""
    return cache_dir() / f"static-{weights_fingerprint(directory)}-r{RECIPE}-d{dim}.npy"


def cached_table(directory: Path, dim: int = DIM,
                 progress: Progress | None = None) -> np.ndarray:
    """The distilled table for the weights in ``directory``: from the cache, else
    distilled now (reporting to ``progress``) and cached (one distiller at a time,
    atomic rename)."""
    import numpy as np

    from repoctx.vectors.embedders.bert import Bert

    path = table_path(directory, dim)
    base = path.parent
    if path.is_file():
        return _load(path)
    try:
        base.mkdir(parents=True, exist_ok=True)
        with (base / (path.name + ".lock")).open("a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # a second process waits for the first
            if not path.is_file():
                table = distil(Bert(directory), dim, progress=progress).astype(np.float16)
                partial = path.with_name(f"{path.name}.{os.getpid()}.part")
                with partial.open("wb") as fh:
                    np.save(fh, table)
                partial.replace(path)
    except OSError as exc:
        raise EmbedderError(f"cannot write the static embedding cache {path}: {exc}; "
                            f"point ${CACHE_ENV} at a writable directory") from exc
    return _load(path)


def mapped_table(directory: Path, dim: int = DIM,
                 progress: Progress | None = None) -> np.ndarray:
    """``cached_table`` as float32, mapped from a file written once beside it: an
    embedder reads only the rows of the pieces it meets, so a process that embeds a few
    texts (a one-file ``repoctx index``: the export and the back-fill each) neither
    reads nor converts the whole table (~25 ms each). Like the table, it is
    written under a temporary name and renamed, never rewritten in place (a mapped file
    cut short would fault every process reading it)."""
    import numpy as np

    path = table_path(directory, dim).with_suffix(".f32")
    try:
        found = np.load(path, mmap_mode="r")
        if found.dtype == np.float32 and found.ndim == 2 and found.shape[1] == dim:
            return found
    except (OSError, ValueError):
        pass  # not written yet, or damaged: written again from the cached table
    table = cached_table(directory, dim, progress)
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    try:
        with partial.open("wb") as fh:
            np.save(fh, table)
        partial.replace(path)
        return np.load(path, mmap_mode="r")
    except (OSError, ValueError):  # fail open: the table in memory serves as well
        partial.unlink(missing_ok=True)
        return table


def _load(path: Path) -> np.ndarray:
    import numpy as np

    try:
        return np.load(path).astype(np.float32)
    except (OSError, ValueError) as exc:
        raise EmbedderError(f"the cached static table {path} is unreadable ({exc}); "
                            "delete it to distil it again") from exc


class StaticEmbedder:
    """Static piece vectors distilled from all-MiniLM-L6-v2, summed and L2-normalised."""

    name = NAME
    normalisation = L2

    def __init__(self, model_dir: Path | None = None, dim: int = DIM, *,
                 table: np.ndarray | None = None, model: str | None = None) -> None:
        """``table`` (with its ``model`` name) replaces the distilled one: a variant."""
        self._model_dir = model_dir
        self._dim: int | None = None if table is None else int(table.shape[1])
        self._asked = dim
        self._model = model
        self._table: np.ndarray | None = table
        self._tokenizer: WordPiece | None = None
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        """``DIM``, or the model's hidden size when that is smaller (read from its config)."""
        if self._dim is None:
            self._dim = min(self._asked, hidden_size(self._directory()))
        return self._dim

    @property
    def model(self) -> str:
        """The space's model name: the recipe, the source weights and the dimension."""
        return self._model or f"repoctx-static-r{RECIPE}/all-MiniLM-L6-v2/{self.dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text (a text with no pieces is a zero row)."""
        import numpy as np

        from repoctx.vectors.embedders.bert import words

        table, tok = self._load()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        pieces = tok.word_ids
        for row, text in enumerate(texts):
            # The sum over pieces, grouped by word: each distinct word is looked up once
            # and weighted by its count (code repeats its words; ~20% faster than a
            # piece per occurrence, the same vector to float rounding).
            ids: list[int] = []
            weights: list[int] = []
            for word, count in Counter(words(text)).items():
                got = pieces(word)
                ids += got
                weights += [count] * len(got)
            if ids:
                out[row] = np.asarray(weights, dtype=np.float32) @ table[ids]
        return l2_normalise(out)

    def distilled(self) -> bool:
        """True when this machine's cache holds the table (no first-use distillation)."""
        return self._table is not None or table_path(self._directory(), self.dim).is_file()

    def prepare(self, progress: Progress | None = None) -> None:
        """Load the table now, distilling it first when it is not cached (``progress``
        counts the vocabulary pieces), so a first use can show and time that minute."""
        self._load(progress)

    def _directory(self) -> Path:
        from repoctx.vectors.embedders.minilm import model_directory

        return self._model_dir or model_directory()

    def _load(self, progress: Progress | None = None) -> tuple[np.ndarray, WordPiece]:
        from repoctx.vectors.embedders.bert import WordPiece

        with self._lock:
            if self._table is None or self._tokenizer is None:
                directory = self._directory()
                self._tokenizer = WordPiece.from_file(directory / "vocab.txt")
                if self._table is None:
                    self._table = mapped_table(directory, self.dim, progress)
            return self._table, self._tokenizer


def hidden_size(directory: Path) -> int:
    """The hidden size in the model's ``config.json``."""
    try:
        return int(json.loads((directory / "config.json").read_text())["hidden_size"])
    except (OSError, ValueError, KeyError) as exc:
        raise EmbedderError(f"no usable config.json in {directory}: {exc}") from exc
