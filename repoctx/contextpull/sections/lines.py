"""`contextpull/sections/lines` — line-group sectioning for text without usable structure.

Pure; no I/O. Used for code outside definitions (and definitions too big to keep whole),
and for other text files whose blank-line blocks are too big. A line longer than the
limit is cut into pieces that share its line number. A text's lines are indexed once
(:class:`Lines`), so a group is found by bisecting line offsets and cut from the text
as one slice, with no Python loop over its lines.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from operator import add

from repoctx.contextpull.sections.blocks import Block


class Lines:
    """A text split at ``\\n``, with each line's end offset (1-based line ``n`` is
    ``text[ends[n - 2] : ends[n - 1] - 1]``, as if the text ended with a newline)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self._ends: list[int] | None = None

    @property
    def ends(self) -> list[int]:
        """End offset of every line (computed on first use: most other text never needs it)."""
        if self._ends is None:
            lengths = accumulate(map(len, self.lines))
            self._ends = list(map(add, lengths, range(1, len(self.lines) + 1)))
        return self._ends

    def __len__(self) -> int:
        return len(self.lines)

    def span(self, start: int, end: int) -> str:
        """Lines ``start``..``end`` (1-based, inclusive) joined by ``\\n``."""
        if start > end:
            return ""
        ends = self.ends
        return self.text[ends[start - 2] if start > 1 else 0 : ends[end - 1] - 1]


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
    lines: Lines, start: int, end: int, max_chars: int, *, kind: str, overlap: int = 0
) -> list[Block]:
    """Blocks of consecutive lines from the 1-based span ``[start, end]``, each at most
    ``max_chars`` characters; consecutive groups share ``overlap`` lines (never more than
    half a group). Blank edge lines are dropped; an all-blank span gives no block."""
    start, end = _trimmed(lines.lines, start, end)
    blocks: list[Block] = []
    text, ends = lines.text, lines.ends
    line = start
    while line <= end:
        first = ends[line - 2] if line > 1 else 0
        # The longest group from ``line`` that fits: its lines' ends are within the limit.
        last = bisect_right(ends, first + max_chars + 1, line - 1, end)
        if last < line:  # the line alone is over the limit
            long = lines.lines[line - 1]
            blocks.extend(
                Block(kind, long[i : i + max_chars], line, line)
                for i in range(0, len(long), max_chars)
            )
            line += 1
            continue
        blocks.append(Block(kind, text[first : ends[last - 1] - 1].rstrip(), line, last))
        shared = min(overlap, (last - line + 1) // 2)
        line = last + 1 - shared if last < end else last + 1
    return [block for block in blocks if block.text and not block.text.isspace()]
