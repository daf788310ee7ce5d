"""`contextpull/sections/merge` — section drafts, and the merging of fragments under 40 characters.

Pure; no I/O. A fragment made only of heading lines merges forward into the next section
(so ``# Title`` + ``## Sub`` + a table become one section); any other fragment merges
backward (forward when it is first). The receiving section keeps its heading path, level
and symbol; a merge that would exceed the size limit is not made.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from repoctx.contextpull.sections.blocks import Block, join_blocks, section_kind
from repoctx.contextpull.sections.documents import Section

MIN_FRAGMENT_CHARS = 40


@dataclass(frozen=True)
class Draft:
    """A section under construction: its path, level, blocks and optional symbol."""

    heading_path: str
    level: int
    blocks: tuple[Block, ...]
    symbol: str | None = None
    # The section text the blocks make, joined once: every draft's length is asked for
    # (often repeatedly, when merging), so it is set eagerly rather than cached on first
    # use (``cached_property`` takes a lock per access on Python 3.11).
    text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", join_blocks(self.blocks))

    def with_blocks(self, blocks: tuple[Block, ...]) -> Draft:
        """This draft with ``blocks`` instead of its own."""
        return Draft(self.heading_path, self.level, blocks, self.symbol)

    def to_section(self) -> Section:
        """The finished :class:`Section`, kind and line span derived from the blocks."""
        blocks = self.blocks
        return Section(
            heading_path=self.heading_path,
            level=self.level,
            kind=section_kind(blocks),
            text=self.text,
            start_line=min(b.start_line for b in blocks),
            end_line=max(b.end_line for b in blocks),
            symbol=self.symbol,
        )


def _heading_only(draft: Draft) -> bool:
    return all(block.kind == "heading" for block in draft.blocks)


def _absorb(receiver: Draft, blocks: tuple[Block, ...], before: bool) -> Draft:
    return receiver.with_blocks(blocks + receiver.blocks if before else receiver.blocks + blocks)


def merge_fragments(drafts: Iterable[Draft], max_chars: int) -> list[Draft]:
    """Merge fragments shorter than 40 characters into their neighbours (see module doc)."""
    out: list[Draft] = []
    pending: Draft | None = None
    for draft in drafts:
        if pending is not None:
            combined = _absorb(draft, pending.blocks, before=True)
            if len(combined.text) <= max_chars:
                draft = combined
            else:
                out.append(pending)
            pending = None
        if len(draft.text) < MIN_FRAGMENT_CHARS:
            if _heading_only(draft) or not out:
                pending = draft
                continue
            combined = _absorb(out[-1], draft.blocks, before=False)
            if len(combined.text) <= max_chars:
                out[-1] = combined
                continue
        out.append(draft)
    if pending is not None:
        combined = _absorb(out[-1], pending.blocks, before=False) if out else None
        if combined is not None and len(combined.text) <= max_chars:
            out[-1] = combined
        else:
            out.append(pending)
    return out
