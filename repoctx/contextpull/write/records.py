"""`contextpull/write/records` — one document's rows, ready to insert into a store.

Pure; no I/O. :func:`prepare` turns a :class:`SourceDocument` into a
:class:`DocumentRows` (sectioning, summary); the reuse path builds the same shape from a
previous export, so the writer inserts both the same way. Nothing is counted here: a
document's token count is the one its caller supplies (``SourceDocument.tokens``, a file
node's count for exactly these bytes), else ``None``, so every stored count is exact and
a missing one is NULL. Counting every document was over half of the workers' CPU on a
Django export (bench/contextpull.py) and nothing reads the stored counts (a context
bundle counts what it sends; the tools read file nodes). ``Section.tokens`` likewise
stays ``None`` for fresh sections (a previous export's values are carried over on reuse).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from repoctx.contextpull.sections.documents import Section, SourceDocument, language_for
from repoctx.contextpull.sections.sectioning import section_document
from repoctx.contextpull.sections.summary import summarise


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
    mtime_ns: int | None = None


def sha256_hex(data: bytes) -> str:
    """Lower-case hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def prepare(document: SourceDocument, max_chars: int, ingested_at: str) -> DocumentRows:
    """Section and summarise ``document`` into rows."""
    sectioned = section_document(document, max_chars)
    summary, summary_src = summarise(sectioned)
    return DocumentRows(
        path=document.path,
        sha256=document.sha256 or sha256_hex(document.data),
        size=len(document.data),
        title=sectioned.title,
        summary=summary,
        summary_src=summary_src,
        kind=sectioned.kind,
        ingested_at=ingested_at,
        sections=sectioned.sections,
        language=document.language or language_for(document.path),
        tokens=document.tokens,
        mtime_ns=document.mtime_ns,
    )
