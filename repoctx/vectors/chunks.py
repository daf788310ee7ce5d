"""vectors/chunks — the texts a source is embedded as, with the span each one covers.

A file is embedded as overlapping windows over its bounded body (``WINDOW`` characters,
``OVERLAP`` shared with the previous window, at most ``MAX_WINDOWS``; a window ends at
a line break near its end when there is one, so code lines are not cut); a symbol as
one text of kind, fully-qualified name, signature and docstring; a memory entry as its
title, tags and body. Whitespace-only texts are dropped, so a source can have none
(the back-fill then marks it ``nil-``). Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

WINDOW = 1600
OVERLAP = 200
MAX_WINDOWS = 32
_SNAP = 160
"""How far back from a window's end a line break is looked for."""
SYMBOL_KINDS = frozenset({"class", "function", "method"})
"""Symbol kinds worth a vector; a module-level variable's line is left to keyword search."""
MEMORY_CHARS = 8000


@dataclass(frozen=True, slots=True)
class Chunk:
    """One text to embed and the span of its source it covers."""

    text: str
    start: int
    end: int


def windows(body: str) -> list[Chunk]:
    """Overlapping windows over ``body`` (character offsets), whitespace-only ones dropped."""
    out: list[Chunk] = []
    start = 0
    while start < len(body) and len(out) < MAX_WINDOWS:
        end = min(len(body), start + WINDOW)
        if end < len(body):
            cut = body.rfind("\n", end - _SNAP, end)
            end = cut + 1 if cut > start + OVERLAP else end
        text = body[start:end]
        if text.strip():
            out.append(Chunk(text, start, end))
        if end >= len(body):
            break
        start = end - OVERLAP
    return out


def symbol_text(fq_name: str, kind: str, signature: str, doc: str) -> str:
    """The one text of a symbol: ``kind fq_name``, the signature and the docstring line."""
    return "\n".join(part for part in (f"{kind} {fq_name}", signature, doc) if part)


def symbol_chunks(fq_name: str, kind: str, signature: str, doc: str, start_line: int,
                  end_line: int) -> list[Chunk]:
    """A symbol's chunk (spanning its lines), or none for a kind not worth a vector."""
    if kind not in SYMBOL_KINDS:
        return []
    return [Chunk(symbol_text(fq_name, kind, signature, doc), start_line, end_line)]


def memory_text(title: str | None, tags: frozenset[str], body: str) -> str:
    """The text of a memory entry: title, tags, then the body (bounded)."""
    head = " ".join(filter(None, (title or "", " ".join(sorted(tags)))))
    return "\n".join(filter(None, (head, body)))[:MEMORY_CHARS]


def memory_chunks(text: str) -> list[Chunk]:
    """A memory entry's one chunk, or none when it has no text."""
    return [Chunk(text, 0, len(text))] if text.strip() else []
