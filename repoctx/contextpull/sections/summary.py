"""`contextpull/sections/summary` — offline extractive document summaries (no model).

Pure; no I/O. Front matter ``summary`` / ``description`` wins; otherwise a Markdown or
text document is summarised by its first prose sentence, a code document by the names it
defines, and anything else by its first non-blank line, all clipped to 160 characters.
"""

from __future__ import annotations

import re

from repoctx.contextpull.sections.documents import Sectioned

SUMMARIZER = "extractive"
SUMMARY_MAX_CHARS = 160
_SENTENCE = re.compile(r"^(.+?[.!?])(?:\s|$)", re.DOTALL)
_NOT_PROSE = ("#", "|", "```", "~~~", "<!--")
_MAX_NAMES = 6


def clip(text: str, limit: int = SUMMARY_MAX_CHARS) -> str:
    """Collapse whitespace and cut at a word boundary, marking the cut with ``…``."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] or text[: limit - 1]
    return cut + "…"


def first_sentence(sectioned: Sectioned) -> str | None:
    """The first sentence of the first prose paragraph, skipping headings, tables, code."""
    headings = {part for s in sectioned.sections for part in s.heading_path.split(" > ")}
    for section in sectioned.sections:
        for paragraph in section.text.split("\n\n"):
            stripped = paragraph.strip()
            if not stripped or stripped.startswith(_NOT_PROSE) or stripped in headings:
                continue
            match = _SENTENCE.match(stripped)
            return clip(match.group(1) if match else stripped)
    return None


def _defined_names(sectioned: Sectioned) -> str | None:
    names: list[str] = []
    for section in sectioned.sections:
        top = (section.symbol or "").split(".")[0]
        if top and top not in names:
            names.append(top)
    if not names:
        return None
    more = f" and {len(names) - _MAX_NAMES} more" if len(names) > _MAX_NAMES else ""
    return clip("Defines " + ", ".join(names[:_MAX_NAMES]) + more)


def _first_line(sectioned: Sectioned) -> str | None:
    for section in sectioned.sections:
        for line in section.text.split("\n"):
            if line.strip():
                return clip(line)
    return None


def summarise(sectioned: Sectioned) -> tuple[str | None, str | None]:
    """``(summary, summary_src)`` for a sectioned document; ``(None, None)`` when empty."""
    for key in ("summary", "description"):
        if sectioned.front_matter.get(key):
            return clip(sectioned.front_matter[key]), "front-matter"
    if sectioned.kind in ("markdown", "text"):
        summary = first_sentence(sectioned)
    elif sectioned.kind == "code":
        summary = _defined_names(sectioned) or _first_line(sectioned)
    else:
        summary = _first_line(sectioned)
    return (summary, SUMMARIZER) if summary else (None, None)
