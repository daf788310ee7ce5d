"""`contextpull/sections/markdown` — section Markdown and plain-text documents as ContextPull does.

Pure; no I/O. Rules (DESIGN §5): front matter removed; title from front matter, else the
first H1, else the file stem; a section starts at each heading of level <= 4 and keeps
its heading line; ``heading_path`` joins the governing headings with `` > ``; text before
any heading is the level-0 preamble titled by the document title. Plain text has no
Markdown: paragraphs split on blank lines, and a short title-cased line standing alone
before a blank line is a level-2 heading.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from repoctx.contextpull.sections.blocks import Block, paragraph_blocks, parse_blocks
from repoctx.contextpull.sections.documents import Sectioned
from repoctx.contextpull.sections.merge import Draft, merge_fragments
from repoctx.contextpull.sections.split import pack_blocks

SECTION_HEADING_MAX_LEVEL = 4
_TEXT_HEADING_MAX_CHARS = 60
# Small words a title-cased line may keep in lower case (after its first word).
_MINOR_WORDS = frozenset(
    {"a", "an", "and", "as", "at", "but", "by", "for", "from", "in", "into", "nor", "of",
     "on", "or", "per", "the", "to", "vs", "via", "with"}
)  # fmt: skip
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def split_front_matter(lines: list[str]) -> tuple[dict[str, str], int]:
    """Front-matter ``key: value`` pairs and the index of the first body line.

    Front matter is a first line ``---`` up to the next ``---``; the blank lines after it
    are dropped too. Without a closing ``---`` there is no front matter.
    """
    if not lines or lines[0].strip() != "---":
        return {}, 0
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            fields = dict(_front_matter_field(line) for line in lines[1:end] if ":" in line)
            body = end + 1
            while body < len(lines) and not lines[body].strip():
                body += 1
            return fields, body
    return {}, 0


def _front_matter_field(line: str) -> tuple[str, str]:
    key, _, value = line.partition(":")
    return key.strip(), value.strip().strip("'\"")


def _first_h1(blocks: list[Block]) -> str | None:
    return next((b.title for b in blocks if b.kind == "heading" and b.level == 1), None)


def drafts_from_blocks(blocks: list[Block], title: str, max_chars: int) -> list[Draft]:
    """Group blocks under their headings, split oversized groups, merge fragments."""
    groups: list[tuple[str, int, list[Block]]] = []
    stack: list[str] = [""] * SECTION_HEADING_MAX_LEVEL
    for block in blocks:
        if block.kind == "heading" and block.level <= SECTION_HEADING_MAX_LEVEL:
            stack[block.level - 1] = block.title
            stack[block.level :] = [""] * (SECTION_HEADING_MAX_LEVEL - block.level)
            path = " > ".join(part for part in stack[: block.level] if part) or title
            groups.append((path, block.level, [block]))
        elif groups:
            groups[-1][2].append(block)
        else:
            groups.append((title, 0, [block]))
    drafts = [
        Draft(path, level, tuple(part))
        for path, level, group in groups
        for part in pack_blocks(group, max_chars)
    ]
    return merge_fragments(drafts, max_chars)


def _sectioned(title: str, kind: str, drafts: list[Draft], fm: dict[str, str]) -> Sectioned:
    return Sectioned(title, kind, tuple(d.to_section() for d in drafts), fm)


def section_markdown(path: str, text: str, max_chars: int) -> Sectioned:
    """Section a Markdown document's text."""
    lines = text.split("\n")
    front_matter, body = split_front_matter(lines)
    blocks = parse_blocks(lines[body:], first_line=body + 1)
    title = front_matter.get("title") or _first_h1(blocks) or PurePosixPath(path).stem
    drafts = drafts_from_blocks(blocks, title, max_chars)
    return _sectioned(title, "markdown", drafts, front_matter)


def is_text_heading(line: str) -> bool:
    """A plain-text heading line: <= 60 chars, title-cased, no final punctuation."""
    stripped = line.strip()
    if not stripped or len(stripped) > _TEXT_HEADING_MAX_CHARS or stripped[-1] in ".,;:!?":
        return False
    words = _WORD.findall(stripped)
    if not words:
        return False
    return all(
        word[0].isupper() or (index > 0 and word.lower() in _MINOR_WORDS)
        for index, word in enumerate(words)
    )


def text_blocks(lines: list[str]) -> list[Block]:
    """Paragraph blocks of plain text, with stand-alone heading lines as level-2 headings."""
    blocks = paragraph_blocks(lines)
    out: list[Block] = []
    for index, block in enumerate(blocks):
        single = "\n" not in block.text
        if single and index + 1 < len(blocks) and is_text_heading(block.text):
            title = block.text.strip()
            out.append(Block("heading", block.text, block.start_line, block.end_line, 2, title))
        else:
            out.append(block)
    return out


def section_plain_text(path: str, text: str, max_chars: int, kind: str = "text") -> Sectioned:
    """Section a plain-text document (``.txt``, or invalid JSON)."""
    title = PurePosixPath(path).stem
    drafts = drafts_from_blocks(text_blocks(text.split("\n")), title, max_chars)
    return _sectioned(title, kind, drafts, {})
