"""`contextpull/sections/blocks` — a Markdown body as a list of blocks (heading, prose, code,
table).

Pure; no I/O. Only what sectioning needs is recognised: ATX headings, fenced code (never
split), pipe tables (split only between rows) and everything else as prose paragraphs
separated by blank lines. Each block keeps its lines verbatim and its 1-based line span.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TABLE_SEPARATOR = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")


@dataclass(frozen=True)
class Block:
    """One block: ``kind`` is heading / prose / code / table; ``level`` for headings."""

    kind: str
    text: str
    start_line: int
    end_line: int
    level: int = 0
    title: str = ""


def heading_of(line: str) -> tuple[int, str] | None:
    """``(level, text)`` when ``line`` is an ATX heading, else ``None``."""
    match = _HEADING.match(line)
    if match is None:
        return None
    return len(match.group(1)), (match.group(2) or "").strip()


def _fence_end(lines: list[str], start: int) -> int:
    """Index one past the closing fence of the fence opened at ``lines[start]``."""
    marker = _FENCE_OPEN.match(lines[start])
    assert marker is not None
    fence = marker.group(1)
    closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
    for index in range(start + 1, len(lines)):
        if closing.match(lines[index]):
            return index + 1
    return len(lines)


def _is_table_start(lines: list[str], index: int) -> bool:
    return (
        "|" in lines[index]
        and index + 1 < len(lines)
        and "|" in lines[index + 1]
        and _TABLE_SEPARATOR.match(lines[index + 1]) is not None
    )


def _table_end(lines: list[str], start: int) -> int:
    index = start + 2
    while index < len(lines) and lines[index].strip() and "|" in lines[index]:
        index += 1
    return index


def _starts_block(lines: list[str], index: int) -> bool:
    line = lines[index]
    return bool(
        not line.strip()
        or heading_of(line)
        or _FENCE_OPEN.match(line)
        or _is_table_start(lines, index)
    )


def _paragraph_end(lines: list[str], start: int) -> int:
    index = start + 1
    while index < len(lines) and not _starts_block(lines, index):
        index += 1
    return index


def parse_blocks(lines: list[str], first_line: int = 1) -> list[Block]:
    """Split Markdown ``lines`` into blocks; ``first_line`` is the number of ``lines[0]``."""
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        heading = heading_of(line)
        if heading is not None:
            kind, end = "heading", index + 1
        elif _FENCE_OPEN.match(line):
            kind, end = "code", _fence_end(lines, index)
        elif _is_table_start(lines, index):
            kind, end = "table", _table_end(lines, index)
        else:
            kind, end = "prose", _paragraph_end(lines, index)
        text = "\n".join(lines[index:end]).rstrip()
        level, title = heading if heading is not None else (0, "")
        blocks.append(Block(kind, text, first_line + index, first_line + end - 1, level, title))
        index = end
    return blocks


def paragraph_blocks(lines: list[str], first_line: int = 1) -> list[Block]:
    """Split plain-text ``lines`` into prose blocks on blank lines."""
    blocks: list[Block] = []
    start: int | None = None
    for index, line in enumerate([*lines, ""]):
        blank = not line or line.isspace()  # ``not line.strip()`` without the copy
        if start is None:
            if not blank:
                start = index
        elif blank:
            text = "\n".join(lines[start:index]).rstrip()
            blocks.append(Block("prose", text, first_line + start, first_line + index - 1))
            start = None
    return blocks


def section_kind(blocks: Sequence[Block]) -> str:
    """Section kind, heading lines ignored: table / code when the rest is one such block
    (or only such blocks), ``mixed`` when one sits beside prose, else ``prose``."""
    kinds = {block.kind for block in blocks if block.kind != "heading"}
    if kinds in ({"table"}, {"code"}):
        return kinds.pop()
    if kinds & {"table", "code"}:
        return "mixed"
    return "prose"


def join_blocks(blocks: Sequence[Block]) -> str:
    """Section text: block texts joined by one blank line, no trailing newline."""
    return "\n\n".join(block.text for block in blocks)
