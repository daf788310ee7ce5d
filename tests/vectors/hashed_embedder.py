"""A deterministic embedder for unit tests only (never selectable from the CLI).

Hashed bag of words: each lower-cased word adds +1 or -1 (by a second hash) to one of
``dim`` buckets; the row is L2-normalised. Texts sharing words land near each other,
which is all the tests need. ``fail_after`` makes the n-th call raise; ``delay`` slows
each call (to kill a back-fill midway).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Sequence

import numpy as np

from repoctx.vectors import l2_normalise

_WORD = re.compile(r"\w+")


class HashedBagTestEmbedder:
    name = "hashed-bag-test"
    normalisation = "l2"

    def __init__(self, dim: int = 64, model: str = "test/hashed-bag", *,
                 fail_after: int | None = None, delay: float = 0.0) -> None:
        self.dim, self.model = dim, model
        self.fail_after, self.delay, self.calls, self.texts = fail_after, delay, 0, 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.fail_after is not None and self.calls > self.fail_after:
            raise RuntimeError("the test embedder was told to fail")
        if self.delay:
            time.sleep(self.delay)
        self.texts += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                digest = hashlib.blake2b(f"{self.model}:{word}".encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                out[row, bucket] += 1.0 if digest[4] & 1 else -1.0
        return l2_normalise(out)
