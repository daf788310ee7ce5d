"""`contextpull/sections/split` — fit a section's blocks into parts of at most ``max_chars``.

Pure; no I/O. Parts break at block boundaries first; a prose block too big for a part is
split at sentence ends, then at spaces, then hard; a table between rows, every part
starting with the header row and separator; a fenced code block never (alone if too big).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from repoctx.contextpull.sections.blocks import Block

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_SPACE = re.compile(r"\s+")
_MIN_FILL = 200  # below this much room, a split block starts a fresh part instead
_SEPARATOR = 2  # the blank line joining two blocks


def _pieces(text: str, pattern: re.Pattern[str]) -> list[str]:
    """Cut ``text`` after each match of ``pattern``, keeping the whitespace with the piece."""
    cuts = [m.end() for m in pattern.finditer(text)]
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if b > a]


def _units(text: str, budget: int) -> list[str]:
    """Sentences, with any sentence over ``budget`` broken into words, then hard cuts."""
    units: list[str] = []
    for sentence in _pieces(text, _SENTENCE_END):
        if len(sentence.strip()) <= budget:
            units.append(sentence)
            continue
        for word in _pieces(sentence, _SPACE):
            units.extend(word[i : i + budget] for i in range(0, len(word), budget))
    return units


def _line_block(block: Block, text: str, offset: int, kind: str | None = None) -> Block:
    start = block.start_line + block.text.count("\n", 0, offset)
    return Block(kind or block.kind, text, start, start + text.count("\n"))


def split_prose(block: Block, first_budget: int, budget: int) -> list[Block]:
    """Split a prose block into pieces; the first fits ``first_budget``, the rest ``budget``."""
    pieces: list[Block] = []
    current, offset, limit = "", 0, first_budget
    for unit in _units(block.text, min(first_budget, budget)):
        if current and len((current + unit).strip()) > limit:
            pieces.append(_line_block(block, current.strip(), offset))
            offset += len(current)
            current, limit = "", budget
        current += unit
    if current.strip():
        pieces.append(_line_block(block, current.strip(), offset))
    return pieces


def split_table(block: Block, first_budget: int, budget: int) -> list[Block]:
    """Split a table between rows; every piece begins with the header and separator."""
    lines = block.text.split("\n")
    header, rows = lines[:2], lines[2:]
    pieces: list[Block] = []
    current: list[str] = []
    limit, row_offset = first_budget, 2
    for row in rows:
        if current and len("\n".join([*header, *current, row])) > limit:
            pieces.append(_table_piece(block, header, current, row_offset))
            row_offset += len(current)
            current, limit = [], budget
        current.append(row)
    pieces.append(_table_piece(block, header, current, row_offset))
    return pieces


def _table_piece(block: Block, header: list[str], rows: list[str], row_offset: int) -> Block:
    start = block.start_line + row_offset if row_offset > 2 else block.start_line
    end = block.start_line + row_offset + len(rows) - 1
    return Block("table", "\n".join([*header, *rows]), start, max(start, end))


def _split(block: Block, first_budget: int, budget: int) -> list[Block]:
    if block.kind == "table":
        return split_table(block, first_budget, budget)
    return split_prose(block, first_budget, budget)


def pack_blocks(blocks: Iterable[Block], max_chars: int) -> list[list[Block]]:
    """Group ``blocks`` into parts whose joined text is at most ``max_chars``.

    Only an oversized fenced code block (or heading) may exceed it, alone in its part.
    """
    parts: list[list[Block]] = []
    current: list[Block] = []
    size = 0
    for block in blocks:
        extra = len(block.text) + (_SEPARATOR if current else 0)
        if size + extra <= max_chars:
            current.append(block)
            size += extra
            continue
        room = max_chars - size - _SEPARATOR
        splittable = block.kind in ("prose", "table")
        if current and (not splittable or room < _MIN_FILL):
            parts.append(current)
            current, size, room = [], 0, max_chars
        if not splittable:
            current, size = [block], len(block.text)
            continue
        pieces = _split(block, room if current else max_chars, max_chars)
        if current and size + _SEPARATOR + len(pieces[0].text) > max_chars:
            parts.append(current)
            current, pieces = [], _split(block, max_chars, max_chars)
        current.append(pieces[0])
        for piece in pieces[1:]:
            parts.append(current)
            current = [piece]
        size = len("\n\n".join(b.text for b in current))
    if current:
        parts.append(current)
    return parts
