"""`contextpull/counting` — exact cl100k token counts of many texts, as cheaply as possible.

Pure apart from the shared encoding (``repoctx.tokenizer``). Counts equal
``count_tokens`` exactly: special-token strings count as plain text. The fast path asks
tiktoken's core for its token buffer instead of a Python list of ints, which saves
building one Python int per token (~20% of counting on Django); a core without that
method, or a text it refuses, falls back to ``count_tokens``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from repoctx.tokenizer import count_tokens, encoding

_NO_SPECIAL: frozenset[str] = frozenset()


@lru_cache(maxsize=1)
def _buffer_counter() -> Callable[[str], int] | None:
    """A counter reading the length of tiktoken's token buffer, or None if unavailable."""
    core = getattr(encoding(), "_core_bpe", None)
    to_buffer = getattr(core, "encode_to_tiktoken_buffer", None)
    if to_buffer is None:
        return None

    def count(text: str) -> int:
        return memoryview(to_buffer(text, _NO_SPECIAL)).nbytes // 4  # uint32 tokens

    try:
        if count("hello world <|endoftext|>") != count_tokens("hello world <|endoftext|>"):
            return None
    except Exception:  # noqa: BLE001 - private API: any surprise means "use the public one"
        return None
    return count


def count_one(text: str) -> int:
    """Number of cl100k tokens in ``text`` (exactly ``count_tokens(text)``)."""
    fast = _buffer_counter()
    if fast is None:
        return count_tokens(text)
    try:
        return fast(text)
    except (UnicodeEncodeError, ValueError, TypeError):
        return count_tokens(text)  # lone surrogates and the like: tiktoken's own handling
