"""vectors/export — fill a ContextPull export's ``embeddings`` table.

``fill_embeddings(conn, embedder)`` embeds every section that has no embedding yet
(heading path and text), so a re-export that carried unchanged documents' rows over
only embeds what changed; rows of another model are deleted first (the table holds
one model). Vectors are L2-normalised little-endian float32 (ContextPull's format).
The caller owns the connection and its transaction. An embedder failure raises
``EmbedderError`` after the rows embedded so far were inserted.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from repoctx.vectors.embedders.embedder import Embedder, float32_bytes, is_none, l2_normalise

BATCH = 64
MISSING = ("SELECT s.id, s.heading_path, s.text FROM sections s"
           " LEFT JOIN embeddings e ON e.section_id = s.id WHERE e.section_id IS NULL"
           " ORDER BY s.doc_id, s.ordinal")
INSERT = "INSERT OR REPLACE INTO embeddings(section_id, model, dim, vec) VALUES (?, ?, ?, ?)"


def section_text(heading_path: str, text: str) -> str:
    """What a section is embedded as: its heading path, then its text."""
    return f"{heading_path}\n{text}" if heading_path else text


def fill_embeddings(conn: sqlite3.Connection, embedder: Embedder | None, *, batch: int = BATCH,
                    progress: Callable[[int, int], None] | None = None) -> int:
    """Embed the sections lacking an embedding; returns how many rows were inserted."""
    if is_none(embedder):
        return 0
    conn.execute("DELETE FROM embeddings WHERE model != ?", (embedder.model,))
    todo = conn.execute(MISSING).fetchall()
    done = 0
    for start in range(0, len(todo), batch):
        part = todo[start:start + batch]
        vectors = l2_normalise(embedder.embed([section_text(h, t) for _, h, t in part]))
        conn.executemany(INSERT, [(sid, embedder.model, embedder.dim, float32_bytes(v))
                                  for (sid, _, _), v in zip(part, vectors, strict=True)])
        done += len(part)
        if progress is not None:
            progress(done, len(todo))
    return done
