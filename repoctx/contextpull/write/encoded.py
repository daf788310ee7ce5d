"""`contextpull/write/encoded` — one document's rows as the SQL parameter tuples the writer sends.

Pure; no I/O. :func:`encode` does all per-section work of an insert (ids, chains, length,
hash, FTS normalisation) once, so it can run in a worker process while the writer
inserts; only a document's ``doc_id`` and its sections' rowids are left out, because they
depend on its place in the export. The tuples follow the column order of the insert
statements in ``contextpull/sql``, which put those two last so the writer only appends.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from repoctx.contextpull.tokens import normalise_fts_text
from repoctx.contextpull.write.records import DocumentRows


class EncodedDocument(NamedTuple):
    """A document's rows, ready for ``executemany`` (less ``doc_id`` and rowids).

    ``document`` is the ``documents`` row after ``doc_id``; ``side_document`` the
    ``repoctx_documents`` row after it; each of ``sections`` (``id`` … ``next_id``),
    ``fts`` (``id, heading_path, text``, normalised), ``side_sections`` and
    ``embeddings`` has one tuple per row. A named tuple, not a dataclass: workers send
    these back pickled, and a tuple unpickles ~3x faster (bench/).
    """

    path: str
    title: str
    summary: str | None
    document: tuple
    side_document: tuple
    sections: list[tuple]
    fts: list[tuple]
    side_sections: list[tuple]
    embeddings: list[tuple]
    reused: bool = False
    extra: object = None
    """Another layer's values for the document (``contextpull/write/extra_rows``), if asked for."""

    @property
    def n_sections(self) -> int:
        """Number of sections."""
        return len(self.sections)


def encode(rows: DocumentRows) -> EncodedDocument:
    """The insert tuples of ``rows``."""
    path, n = rows.path, len(rows.sections)
    ids = [f"{path}#{ordinal}" for ordinal in range(n)]
    prev_ids, next_ids = [None, *ids[:-1]], [*ids[1:], None]
    sections, fts, side = [], [], []
    for ordinal, section in enumerate(rows.sections):
        sid, text, heading = ids[ordinal], section.text, section.heading_path
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        sections.append((sid, ordinal, heading, section.level, section.kind, text, len(text),
                         digest, prev_ids[ordinal], next_ids[ordinal]))  # fmt: skip
        fts.append((sid, normalise_fts_text(heading), normalise_fts_text(text)))
        side.append((sid, section.start_line, section.end_line, section.tokens, section.symbol))
    document = (path, rows.title, rows.summary, rows.summary_src, rows.sha256, rows.size,
                rows.kind, n, rows.ingested_at)  # fmt: skip
    embeddings = [(e.section_id, e.model, e.dim, e.vec) for e in rows.embeddings]
    side_document = (rows.language, rows.tokens, rows.mtime_ns)
    return EncodedDocument(path, rows.title, rows.summary, document, side_document,
                           sections, fts, side, embeddings, rows.reused)  # fmt: skip
