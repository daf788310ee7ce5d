"""`contextpull/sections/othertext` — section other text files (YAML, TOML, INI, reST, logs, …).

Pure; no I/O. Blank-line blocks are packed into sections up to the size limit; a block
too big for one section falls back to overlapping groups of lines, so a match near a cut
is still seen whole in one of the two groups. Sections are titled by the document path.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from repoctx.contextpull.sections.blocks import Block, paragraph_blocks
from repoctx.contextpull.sections.documents import Sectioned
from repoctx.contextpull.sections.lines import Lines, line_blocks
from repoctx.contextpull.sections.merge import Draft, merge_fragments

OVERLAP_LINES = 3


def _parts(lines: Lines, max_chars: int) -> list[list[Block]]:
    parts: list[list[Block]] = []
    current: list[Block] = []
    size = 0
    for block in paragraph_blocks(lines.lines):
        extra = len(block.text) + (2 if current else 0)
        if size + extra <= max_chars:
            current.append(block)
            size += extra
            continue
        if current:
            parts.append(current)
        current, size = [block], len(block.text)
        if len(block.text) > max_chars:
            groups = line_blocks(
                lines, block.start_line, block.end_line, max_chars,
                kind="prose", overlap=OVERLAP_LINES,
            )  # fmt: skip
            parts.extend([group] for group in groups)
            current, size = [], 0
    if current:
        parts.append(current)
    return parts


def section_other_text(path: str, text: str, max_chars: int) -> Sectioned:
    """Section a text file that is neither Markdown, ``.txt``, JSON nor code."""
    drafts = [Draft(path, 0, tuple(part)) for part in _parts(Lines(text), max_chars)]
    merged = merge_fragments(drafts, max_chars)
    return Sectioned(PurePosixPath(path).name, "other", tuple(d.to_section() for d in merged))
