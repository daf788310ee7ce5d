"""retrieval/bundle/wire — the bytes a context bundle is sent as, and what they cost.

``dumps`` is the one serialization of a response (compact separators, UTF-8 kept as
is): the server and the CLI must send exactly its output, since budgets are charged on
it. ``seal`` writes ``responseTokens`` into a response so that it equals the exact
token count of the final text, the field's own digits included (a fixed point). Pure,
but for a memo of counts (``_remembered_tokens``).

Counting by parts, still exactly. cl100k splits a text into pieces with a regex that has
no look-behind, then encodes each piece on its own; so wherever a piece must end
whatever surrounds it, the text's count is the sum of its two sides' counts. Such
*cuts*, in ASCII, the left side not ending in white space (punctuation: neither letter,
digit nor space): a letter then a non-letter, a digit then a non-digit, two punctuation
marks then a letter, punctuation then a digit.
A dict whose JSON opens ``{"`` + letter and closes with a letter or digit and then only
quotes and brackets (a unit, whose receipt comes last; an entry of units) has cuts just
inside both ends. It is counted once (``counted``), and a text holding it is counted
as its *shell*, the same text with a small *stand-in* of the same edges in its place,
plus what it adds over the stand-in; the digits of ``responseTokens`` sit between cuts
too. So the big bodies are encoded once, and a response as a whole never. (The tests
check these sums against whole counts on random texts.)
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Any, NamedTuple

from repoctx.tokenizer import count_tokens

RESPONSE_TOKENS = "responseTokens"
_OPEN = '{"'
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_ALNUM = _LETTERS | frozenset("0123456789")
_CLOSERS = '"]}'
_REMEMBERED = 4096


class Counted(NamedTuple):
    """How a dict is counted: alone, and inside a text that holds it."""

    stand: dict[str, Any]
    """What takes its place in a shell: a small dict with its edges (or itself)."""
    added: int
    """The tokens it adds over ``stand`` (0 when it is its own stand-in)."""
    tokens: int
    """Its own exact count."""


def dumps(obj: Any) -> str:
    """The compact JSON text of ``obj``: what is sent and what is counted."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def tokens_of(obj: Any) -> int:
    """Exact token count of ``dumps(obj)``."""
    return count_tokens(dumps(obj))


def counted(obj: dict[str, Any]) -> Counted:
    """``obj``'s count and stand-in; its inside is encoded once for all calls (memo)."""
    text = dumps(obj)
    close = _closing(text)
    if close is None:
        return Counted(obj, 0, count_tokens(text))
    stand, stand_inside, edges = _stand_in(close)
    inside = _remembered_tokens(text[len(_OPEN):-len(close)])
    return Counted(stand, inside - stand_inside, edges + inside)


def _closing(text: str) -> str | None:
    """The run of quotes and brackets closing ``text``, when both its edges are cuts."""
    if len(text) < 4 or not text.startswith(_OPEN) or text[2] not in _LETTERS:
        return None
    inside = text.rstrip(_CLOSERS)
    close = text[len(inside):]
    if inside[-1] not in _ALNUM or '"' in close[1:]:
        return None  # a string closing in punctuation, or escapes: not a cut
    return close


@cache
def _stand_in(close: str) -> tuple[dict[str, Any], int, int]:
    """The smallest dict closing with ``close``, its inside's tokens, and the edges' tokens.

    ``"}]}`` gives ``{"h":[{"h":"h"}]}``: a string (or a number when ``close`` has no
    quote), wrapped in a list or dict per bracket, in a dict.
    """
    value: Any = "h" if close.startswith('"') else 0
    for bracket in close.lstrip('"')[:-1]:
        value = [value] if bracket == "]" else {"h": value}
    stand = {"h": value}
    inside = dumps(stand)[len(_OPEN):-len(close)]
    return stand, count_tokens(inside), count_tokens(_OPEN) + count_tokens(close)


_counts: dict[bytes, int] = {}


def _remembered_tokens(text: str) -> int:
    """``count_tokens(text)``, remembered by the text's SHA-256 (the last ``_REMEMBERED``).

    The same units come back call after call (one task's follow-ups, a session's
    retries), and hashing a text costs about a hundredth of encoding it.
    """
    key = hashlib.sha256(text.encode()).digest()
    count = _counts.get(key)
    if count is None:
        count = count_tokens(text)
        if len(_counts) >= _REMEMBERED:
            _counts.pop(next(iter(_counts)), None)  # the oldest
        _counts[key] = count
    return count


def seal(response: dict[str, Any], shell: dict[str, Any] | None = None,
         added: int = 0) -> str:
    """Set ``response["responseTokens"]`` to the token count of the returned text.

    ``shell`` is ``response`` with some dicts swapped for their ``Counted.stand`` and
    ``added`` the sum of what they add; only the shell is encoded. The field's digits
    are a part of their own: the count with them is the count with ``0`` there, minus
    ``0``'s token, plus theirs, and the smallest number equal to its own total is set.
    """
    skeleton = dict(response if shell is None else shell)
    skeleton[RESPONSE_TOKENS] = 0
    base = count_tokens(dumps(skeleton)) - count_tokens("0") + added
    total = base + 1
    while base + count_tokens(str(total)) != total:  # digits only grow: a few rounds
        total = base + count_tokens(str(total))
    response[RESPONSE_TOKENS] = total
    return dumps(response)
