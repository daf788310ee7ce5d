"""memory/body — a memory entry's body: bounded collaborative text, rewritten line by line.

A caller hands over the whole new body; ``rewrite`` turns it into the few line
splices that change the stored lines into the new ones (whole lines: a changed line
is replaced, never edited character by character) and applies them to the stored
text (``crdt.text_body``). An edit touches only the lines it changed, so a
concurrent edit of other lines on another replica survives the merge, and two
replicas replacing the same line keep both versions, adjacent and intact (issue 16
finding 7). Pure; no I/O.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from repoctx.crdt import text_body
from repoctx.crdt.text_body import LineSplice, TextBody
from repoctx.errors import ToolError

MAX_BODY_BYTES = 65_536
"""Largest body in UTF-8 bytes (issue 6: 64 KiB; larger is a tool error)."""


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


def edits(old: list[str], new: str) -> list[LineSplice]:
    """Line splices turning the lines ``old`` into the text ``new`` (offsets in ``old``).

    Unchanged lines are matched (difflib, no junk heuristic); every other run of lines
    is one splice replacing the old run by the new one.
    """
    if "\n".join(old) == new:
        return []
    want = split_lines(new)
    matcher = SequenceMatcher(None, old, want, autojunk=False)
    return [(i1, i2, want[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            if tag != "equal"]


def rewrite(state: TextBody, new: str, replica: str) -> TextBody:
    """Delta making the text of ``state`` read ``new`` (empty when it already does)."""
    return text_body.replace_lines(state, edits(text_body.lines(state), new), replica)
