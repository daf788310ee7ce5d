"""memory/body — a memory entry's body: bounded collaborative text, rewritten by diff.

A caller hands over the whole new body; ``rewrite`` turns it into the few splices
that change the old text into the new one (common prefix and suffix trimmed, then
lines, then characters inside changed lines) and applies them to the stored Yjs
text, so an edit touches only the region it changed and a concurrent edit of
another region on another replica survives the merge. Pure; no I/O.
"""

from __future__ import annotations

import os
from difflib import SequenceMatcher

from repoctx.crdt import text_body
from repoctx.crdt.text_body import TextBody
from repoctx.errors import ToolError

MAX_BODY_BYTES = 65_536
"""Largest body in UTF-8 bytes (issue 6: 64 KiB; larger is a tool error)."""

_CHAR_DIFF_LIMIT = 2_000
"""Longest region (in characters) diffed character by character; longer ones by line."""

Splice = tuple[int, int, str]


def check_body(body: str) -> str:
    """Return ``body`` if it fits the bound, else raise ``ToolError``."""
    try:
        size = len(body.encode("utf-8"))
    except UnicodeEncodeError:
        raise ToolError("body: not valid Unicode (lone surrogate)") from None
    if size > MAX_BODY_BYTES:
        raise ToolError(f"body: at most {MAX_BODY_BYTES} bytes of UTF-8 (got {size})")
    return body


def edits(old: str, new: str) -> list[Splice]:
    """Splices turning ``old`` into ``new``: ``(start, end, text)`` in ``old``'s offsets."""
    if old == new:
        return []
    head = _common_prefix(old, new)
    tail = _common_suffix(old[head:], new[head:])
    a, b = old[head:len(old) - tail], new[head:len(new) - tail]
    return [(head + s, head + e, t) for s, e, t in _diff(a, b)]


def rewrite(state: TextBody, new: str, replica: str) -> TextBody:
    """Delta making the text of ``state`` read ``new`` (empty when it already does)."""
    return text_body.splice(state, edits(text_body.value(state), new), replica)


def _diff(a: str, b: str) -> list[Splice]:
    if not a or not b:
        return [(0, len(a), b)]
    if max(len(a), len(b)) <= _CHAR_DIFF_LIMIT:
        return _char_diff(a, b)
    lines_a, lines_b = a.splitlines(keepends=True), b.splitlines(keepends=True)
    starts_a, starts_b = _starts(lines_a), _starts(lines_b)
    out: list[Splice] = []
    matcher = SequenceMatcher(None, lines_a, lines_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        sa, ea, sb, eb = starts_a[i1], starts_a[i2], starts_b[j1], starts_b[j2]
        if tag == "replace" and max(ea - sa, eb - sb) <= _CHAR_DIFF_LIMIT:
            out += [(sa + s, sa + e, t) for s, e, t in _char_diff(a[sa:ea], b[sb:eb])]
        else:
            out.append((sa, ea, b[sb:eb]))
    return out


def _char_diff(a: str, b: str) -> list[Splice]:
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    return [(i1, i2, b[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            if tag != "equal"]


def _starts(lines: list[str]) -> list[int]:
    """Offset of each line, plus the total length at the end."""
    out = [0]
    for line in lines:
        out.append(out[-1] + len(line))
    return out


def _common_prefix(a: str, b: str) -> int:
    return len(os.path.commonprefix((a, b)))


def _common_suffix(a: str, b: str) -> int:
    return len(os.path.commonprefix((a[::-1], b[::-1])))
