"""retrieval/wire — the bytes a context bundle is sent as, and what they cost.

``dumps`` is the one serialization of a response (compact separators, UTF-8 kept as
is): the server and the CLI must send exactly its output, since budgets are charged on
it. ``seal`` writes ``responseTokens`` into a response so that it equals the exact
token count of the final text, the field's own digits included (a fixed point). Pure.
"""

from __future__ import annotations

import json
from typing import Any

from repoctx.tokenizer import count_tokens

RESPONSE_TOKENS = "responseTokens"
_MAX_ROUNDS = 8


def dumps(obj: Any) -> str:
    """The compact JSON text of ``obj``: what is sent and what is counted."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def tokens_of(obj: Any) -> int:
    """Exact token count of ``dumps(obj)``."""
    return count_tokens(dumps(obj))


def seal(response: dict[str, Any]) -> str:
    """Set ``response["responseTokens"]`` to the token count of the returned text.

    Counting changes the digits, which can change the count: iterate to the fixed
    point (two rounds in practice). Should the count ever oscillate, the larger value
    is kept, so the field is then an upper bound and never an understatement.
    """
    response[RESPONSE_TOKENS] = response.get(RESPONSE_TOKENS) or 0
    seen: set[int] = set()
    for _ in range(_MAX_ROUNDS):
        text = dumps(response)
        count = count_tokens(text)
        if count == response[RESPONSE_TOKENS]:
            return text
        if count in seen:
            break
        seen.add(count)
        response[RESPONSE_TOKENS] = count
    response[RESPONSE_TOKENS] = max(seen | {response[RESPONSE_TOKENS]})
    text = dumps(response)
    while count_tokens(text) > response[RESPONSE_TOKENS]:
        response[RESPONSE_TOKENS] += 1
        text = dumps(response)
    return text
