"""`contextpull/sections/code` — section a code document by the definitions its caller supplies.

Pure; no I/O. Each top-level definition is one section (``heading_path`` = ``path > Name``);
a definition over the size limit is split per child (``path > Class > method``), its head
(signature, docstring, attributes) forming its own section; code between definitions
(imports, module statements) forms line-group sections titled by the path alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath

from repoctx.contextpull.sections.documents import Definition, Sectioned
from repoctx.contextpull.sections.lines import Lines, line_blocks
from repoctx.contextpull.sections.merge import MIN_FRAGMENT_CHARS, Draft

# A draft paired with whether it may glue onto its neighbour when under 40 characters:
# only code between definitions and the head of a split definition may; a definition
# never loses its own section (and symbol), however short.
_Item = tuple[Draft, bool]


def _top_level(definitions: tuple[Definition, ...], n_lines: int) -> list[Definition]:
    """Definitions in line order, clipped to the file, overlapping ones dropped."""
    out: list[Definition] = []
    for definition in sorted(definitions, key=lambda d: (d.start_line, -d.end_line)):
        start, end = max(1, definition.start_line), min(n_lines, definition.end_line)
        if start > end or (out and start <= out[-1].end_line):
            continue
        out.append(_spanning(definition, start, end))
    return out


def _spanning(definition: Definition, start: int, end: int) -> Definition:
    """``definition`` over lines ``start``..``end`` (itself when unchanged; the constructor
    rather than ``dataclasses.replace``, which cost ~10% of sectioning Django's code)."""
    if definition.start_line == start and definition.end_line == end:
        return definition
    return Definition(definition.name, definition.kind, start, end, definition.children)


class _CodeSectioner:
    """Walks one document's lines and definitions, yielding drafts in line order."""

    def __init__(self, path: str, lines: Lines, max_chars: int) -> None:
        self.path = path
        self.lines = lines
        self.max_chars = max_chars

    def gap(self, start: int, end: int) -> Iterator[_Item]:
        """Line-group drafts for code outside any definition."""
        for block in line_blocks(self.lines, start, end, self.max_chars, kind="code"):
            yield Draft(self.path, 0, (block,)), True

    def _whole(
        self, names: tuple[str, ...], start: int, end: int, glue: bool = False
    ) -> Iterator[_Item]:
        heading = " > ".join((self.path, *names))
        symbol = ".".join(names) or None
        for block in line_blocks(self.lines, start, end, self.max_chars, kind="code"):
            yield Draft(heading, len(names), (block,), symbol), glue

    def definition(self, node: Definition, parents: tuple[str, ...] = ()) -> Iterator[_Item]:
        """Drafts for one definition: whole when it fits, else head plus one per child."""
        names = (*parents, node.name)
        text = self.lines.span(node.start_line, node.end_line).strip("\n")
        children = _top_level(node.children, node.end_line)
        children = [c for c in children if c.start_line > node.start_line]
        if len(text) <= self.max_chars or not children:
            yield from self._whole(names, node.start_line, node.end_line)
            return
        yield from self._whole(names, node.start_line, children[0].start_line - 1, glue=True)
        for index, child in enumerate(children):
            start = child.start_line if index == 0 else children[index - 1].end_line + 1
            last = index == len(children) - 1
            end = node.end_line if last else child.end_line
            yield from self.definition(_spanning(child, start, end), names)

    def document(self, definitions: tuple[Definition, ...]) -> Iterator[_Item]:
        """All drafts of the document, definitions and the code between them."""
        cursor = 1
        for node in _top_level(definitions, len(self.lines)):
            yield from self.gap(cursor, node.start_line - 1)
            yield from self.definition(node)
            cursor = node.end_line + 1
        yield from self.gap(cursor, len(self.lines))


def glue_fragments(items: Iterator[_Item], max_chars: int) -> list[Draft]:
    """Glue short gap and head drafts onto the next draft (the previous when last)."""
    out: list[Draft] = []
    pending: Draft | None = None
    for draft, glue in items:
        if pending is not None:
            combined = draft.with_blocks(pending.blocks + draft.blocks)
            if len(combined.text) <= max_chars:
                draft = combined
            else:
                out.append(pending)
            pending = None
        if glue and len(draft.text) < MIN_FRAGMENT_CHARS:
            pending = draft
        else:
            out.append(draft)
    if pending is not None:
        last = out[-1].with_blocks(out[-1].blocks + pending.blocks) if out else None
        if last is not None and len(last.text) <= max_chars:
            out[-1] = last
        else:
            out.append(pending)
    return out


def section_code(
    path: str, text: str, definitions: tuple[Definition, ...], max_chars: int
) -> Sectioned:
    """Section a code document; ``definitions`` are 1-based inclusive line spans."""
    sectioner = _CodeSectioner(path, Lines(text), max_chars)
    drafts = glue_fragments(sectioner.document(definitions), max_chars)
    return Sectioned(PurePosixPath(path).name, "code", tuple(d.to_section() for d in drafts))
