"""`contextpull/records` — one document's rows, ready to insert into a store.

Pure apart from token counting. :func:`prepare` turns a :class:`SourceDocument` into a
:class:`DocumentRows` (sectioning, summary, document token count); the reuse path builds
the same shape from a previous export, so the writer inserts both the same way. Only the
whole document is counted, and only when the caller did not supply its count
(``SourceDocument.tokens``, e.g. a file node's). Sections are not counted: a context
bundle counts exactly what it sends, so nothing reads a stored section count, and
counting every section was a quarter of a Django export. ``Section.tokens`` stays
``None`` for fresh sections (a previous export's value is carried over on reuse).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from repoctx.contextpull.counting import count_one
from repoctx.contextpull.documents import Section, SourceDocument, decode_text, language_for
from repoctx.contextpull.sectioning import section_document
from repoctx.contextpull.summary import summarise


@dataclass(frozen=True)
class EmbeddingRow:
    """An embedding carried over from a previous export."""

    section_id: str
    model: str
    dim: int
    vec: bytes


@dataclass(frozen=True)
class DocumentRows:
    """Everything the writer stores for one document."""

    path: str
    sha256: str
    size: int
    title: str
    summary: str | None
    summary_src: str | None
    kind: str
    ingested_at: str
    sections: tuple[Section, ...]
    language: str | None = None
    tokens: int | None = None
    embeddings: tuple[EmbeddingRow, ...] = ()
    reused: bool = False


def sha256_hex(data: bytes) -> str:
    """Lower-case hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def prepare(document: SourceDocument, max_chars: int, ingested_at: str) -> DocumentRows:
    """Section and summarise ``document`` into rows."""
    text = decode_text(document.data)  # once, for sectioning and counting
    sectioned = section_document(document, max_chars, text)
    summary, summary_src = summarise(sectioned)
    sections = sectioned.sections
    tokens = document.tokens
    if tokens is None:
        tokens = count_one(text)
    return DocumentRows(
        path=document.path,
        sha256=document.sha256 or sha256_hex(document.data),
        size=len(document.data),
        title=sectioned.title,
        summary=summary,
        summary_src=summary_src,
        kind=sectioned.kind,
        ingested_at=ingested_at,
        sections=sections,
        language=document.language or language_for(document.path),
        tokens=tokens,
    )
