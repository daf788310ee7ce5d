"""`contextpull/lines` — line-group sectioning for text without usable structure.

Pure; no I/O. Used for code outside definitions (and definitions too big to keep whole),
and for other text files whose blank-line blocks are too big. A line longer than the
limit is cut into pieces that share its line number.
"""

from __future__ import annotations

from repoctx.contextpull.blocks import Block


def _blank(line: str) -> bool:
    """``not line.strip()``, without copying the line."""
    return not line or line.isspace()


def _trimmed(lines: list[str], start: int, end: int) -> tuple[int, int]:
    """Narrow the 1-based inclusive span ``[start, end]`` to exclude blank edge lines."""
    while start <= end and _blank(lines[start - 1]):
        start += 1
    while end >= start and _blank(lines[end - 1]):
        end -= 1
    return start, end


def line_blocks(
    lines: list[str], start: int, end: int, max_chars: int, *, kind: str, overlap: int = 0
) -> list[Block]:
    """Blocks of consecutive lines from the 1-based span ``[start, end]``, each at most
    ``max_chars`` characters; consecutive groups share ``overlap`` lines (never more than
    half a group). Blank edge lines are dropped; an all-blank span gives no block."""
    start, end = _trimmed(lines, start, end)
    blocks: list[Block] = []
    line = start
    while line <= end:
        text = lines[line - 1]
        if len(text) > max_chars:
            blocks.extend(
                Block(kind, text[i : i + max_chars], line, line)
                for i in range(0, len(text), max_chars)
            )
            line += 1
            continue
        last = line
        while last < end and len(text) + 1 + len(lines[last]) <= max_chars:
            text += "\n" + lines[last]
            last += 1
        blocks.append(Block(kind, text.rstrip(), line, last))
        shared = min(overlap, (last - line + 1) // 2)
        line = last + 1 - shared if last < end else last + 1
    return [block for block in blocks if block.text and not block.text.isspace()]
