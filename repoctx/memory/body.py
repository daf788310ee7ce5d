"""memory/body — a memory entry's body: bounded collaborative text, rewritten line by line.

A caller hands over the whole new body; ``rewrite`` turns it into the few line
splices that change the stored lines into the new ones (whole lines: a changed line
is replaced, never edited character by character) and applies them to the stored
text (``crdt.text_body``). An edit touches only the lines it changed, so a
concurrent edit of other lines on another replica survives the merge, and two
replicas replacing the same line keep both versions, adjacent and intact.
Pure; no I/O.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from repoctx.crdt import text_body
from repoctx.crdt.text_body import LineSplice, TextBody
from repoctx.errors import ToolError

MAX_BODY_BYTES = 65_536
"""Largest body in UTF-8 bytes (64 KiB; larger is a tool error)."""


def check_body(body: str) -> str:
    """Return ``body`` if it fits the bound, else raise ``ToolError``."""
    try:
        size = len(body.encode("utf-8"))
    except UnicodeEncodeError:
        raise ToolError("body: not valid Unicode (lone surrogate)") from None
    if size > MAX_BODY_BYTES:
        raise ToolError(f"body: at most {MAX_BODY_BYTES} bytes of UTF-8 (got {size})")
    return body


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` as ``text_body`` holds them: split at ``"\\n"``, none for ``""``."""
    return text.split("\n") if text else []


_MATCH_LIMIT = 1_000_000
"""Largest product of old and new changed-region line counts matched exhaustively;
larger regions let difflib skip lines repeated more than 1% of the time (its
``autojunk``), which bounds its otherwise quadratic matching."""


def edits(old: list[str], new: str) -> list[LineSplice]:
    """Line splices turning the lines ``old`` into the text ``new`` (offsets in ``old``).

    Common leading and trailing lines are kept; in between, unchanged lines are matched
    (difflib, its junk heuristic only past ``_MATCH_LIMIT``) and every other run of lines
    is one splice replacing the old run by the new one.
    """
    if "\n".join(old) == new:
        return []
    want = split_lines(new)
    head = 0
    while head < min(len(old), len(want)) and old[head] == want[head]:
        head += 1
    tail = 0
    while (tail < min(len(old), len(want)) - head
           and old[len(old) - 1 - tail] == want[len(want) - 1 - tail]):
        tail += 1
    a, b = old[head:len(old) - tail], want[head:len(want) - tail]
    if not a or not b:
        return [(head, head + len(a), b)]
    matcher = SequenceMatcher(None, a, b, autojunk=len(a) * len(b) > _MATCH_LIMIT)
    return [(head + i1, head + i2, b[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            if tag != "equal"]


def rewrite(state: TextBody, new: str, replica: str) -> TextBody:
    """Delta making the text of ``state`` read ``new`` (empty when it already does)."""
    return text_body.replace_lines(state, edits(text_body.lines(state), new), replica)
