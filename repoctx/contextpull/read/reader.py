"""`contextpull/read/reader` — a conforming ContextPull reader (seed 000) over any writer's store.

Never writes: the file is opened read-only (``mode=ro`` URI, ``query_only``, in-memory
temp storage), so opening and reading leave its bytes and mtime unchanged. ``meta`` is
read once at open. Methods return the JSON shapes of the tools in ``tools.json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from repoctx.contextpull import sql
from repoctx.contextpull.read.opening import StoreMeta, open_store
from repoctx.contextpull.read.search import Embedder, search
from repoctx.contextpull.read.section_rows import (
    StoredSection,
    display_item,
    run_start,
    section_by_id,
    sections_around,
)
from repoctx.contextpull.sqlite_errors import translating_sqlite_errors
from repoctx.contextpull.write.index_text import IndexEntry, document_line, header_line
from repoctx.errors import ToolError

SEARCH_MODES = ("lexical", "hybrid")


class Reader:
    """Read-only access to a ContextPull store; a context manager closing the file."""

    def __init__(self, path: Path | str, embed: Embedder | None = None) -> None:
        self.path = Path(path)
        self._embed = embed
        self._conn, meta = open_store(self.path)
        self.meta: StoreMeta = meta
        """The meta values read once at open (immutable for the life of the file)."""

    def close(self) -> None:
        """Close the file."""
        self._conn.close()

    def __enter__(self) -> Reader:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:  # fmt: skip
        self.close()

    def _section(self, section_id: str) -> StoredSection:
        row = section_by_id(self._conn, section_id)
        if row is None:
            raise ToolError(f"id: unknown section id {section_id!r}")
        return row

    def search(
        self, query: str, in_: Sequence[str] | None = None, limit: int = 10,
        mode: str = "lexical",
    ) -> dict[str, Any]:  # fmt: skip
        """Ranked hits for ``query``: ``{"hits", "mode"[, "hint"]}``; no section bodies."""
        if mode not in SEARCH_MODES:
            raise ToolError(f"mode: must be one of {', '.join(SEARCH_MODES)} (got {mode!r})")
        _check_limit(limit)
        with translating_sqlite_errors(f"searching {self.path}"):
            return search(self._conn, query, in_, limit, mode, self._embed)

    def read(self, id: str, context: int = 0) -> dict[str, Any]:
        """One section with ``prev``/``next`` and up to ``context`` sections each side."""
        if context < 0:
            raise ToolError("context: must be 0 or more")
        with translating_sqlite_errors(f"reading {self.path}"):
            row = self._section(id)
            around = sections_around(self._conn, row, context) if context else []
            return {
                **display_item(self._conn, row),
                "prev": row.prev_id,
                "next": row.next_id,
                "context": [{**display_item(self._conn, r), "context": True} for r in around],
            }

    def grep(
        self, pattern: str, in_: Sequence[str] | None = None, regex: bool = False,
        limit: int = 20,
    ) -> dict[str, Any]:  # fmt: skip
        """Sections containing ``pattern``: ``{"matches", "truncated"}``."""
        _check_limit(limit)
        from repoctx.contextpull.read.grep import grep  # here: its ``regex`` module is
        # ~25 ms of every fresh process that opens a reader and never greps

        with translating_sqlite_errors(f"grepping {self.path}"):
            return grep(self._conn, pattern, in_, regex, limit)

    def neighbours(self, id: str, before: int = 1, after: int = 1) -> dict[str, Any]:
        """The section and its chain neighbours: ``{"sections", "header"}``."""
        if before < 0 or after < 0:
            raise ToolError("before/after: must be 0 or more")
        with translating_sqlite_errors(f"reading {self.path}"):
            row = self._section(id)
            chain = [*reversed(self._walk(row, "prev_id", before)), row]
            chain += self._walk(row, "next_id", after)
            first = run_start(self._conn, row)
            return {
                "sections": [display_item(self._conn, r) for r in chain],
                "header": None if first is None else display_item(self._conn, first),
            }

    def _walk(self, row: StoredSection, link: str, steps: int) -> list[StoredSection]:
        out: list[StoredSection] = []
        current = row
        for _ in range(steps):
            target = getattr(current, link)
            nxt = section_by_id(self._conn, target) if target else None
            if nxt is None or nxt.doc_id != row.doc_id:
                break
            out.append(nxt)
            current = nxt
        return out

    def index(self, prefix: str | None = None) -> dict[str, Any]:
        """``meta.index_text`` verbatim, or the per-document listing under ``prefix``."""
        if prefix is None:
            return {"text": self.meta.index_text, "mode": self.meta.index_mode}
        with translating_sqlite_errors(f"reading {self.path}"):
            rows = self._conn.execute(sql.DOCUMENTS_IN_ORDER).fetchall()
        entries = [IndexEntry(*row) for row in rows if row[0].startswith(prefix)]
        lines = [header_line(prefix, entries), *map(document_line, entries)]
        return {"text": "\n".join(lines), "prefix": prefix}


def _check_limit(limit: int) -> None:
    if limit < 1:
        raise ToolError("limit: must be 1 or more")
