"""`contextpull/write/extra_rows` — another layer's per-section rows, built in the export's own
pass.

A layer above ContextPull (repoctx's search tables, ``retrieval/index/tables``) may add
tables keyed by the sections' rowids. Building them after the export, from the
sections read back and sent to a second pool of workers, was about a third of a cold
export's CPU. An :class:`ExtraRows` instead computes a document's values in
the sectioning worker that has the document in hand (``contextpull/write/pool``), and the
writer hands them, with the rowids it gave the document's sections, to the
:class:`ExtraSink` it opened on the file, in the same transaction as the document's
own rows.

The writer finds an ``ExtraRows`` on its ``finalize`` hook, as the attribute
``section_rows`` (the hook that reads the extra tables is the one that knows how they
are built), and uses it for a full rewrite only: a patch leaves the extra tables to the
hook, which updates what changed. ``compute`` runs in forked workers: it must use no
handle of the writer's process, and what it returns is sent back pickled.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Protocol

from repoctx.contextpull.sections.definitions import SymbolSpan
from repoctx.contextpull.write.records import DocumentRows


class ExtraSink(Protocol):
    """Where the writer's process puts computed values, document by document, in order."""

    def add(self, path: str, rowid: int, section_ids: Sequence[str], computed: object) -> None:
        """The document ``path``'s values (``ExtraRows.compute``); its sections have the
        ids ``section_ids`` and the rowids from ``rowid`` on, in order."""

    def close(self) -> None:
        """Every document was added: finish the tables (inside the same transaction)."""


class ExtraRows(Protocol):
    """A builder of extra tables, run beside the export's sectioning."""

    def compute(self, rows: DocumentRows, declared: Sequence[SymbolSpan] | None) -> object:
        """The values of one sectioned document (in a worker process for a big export).
        ``declared`` is the store's declarations of exactly these bytes when the
        definitions source holds them (``StoreDefinitions.declared``), else None."""

    def open(self, conn: sqlite3.Connection) -> ExtraSink:
        """Create the tables in the file open on ``conn`` (inside the build's
        transaction) and return the sink for the documents' values."""


def section_rows_of(finalize: object) -> ExtraRows | None:
    """The ``ExtraRows`` a ``finalize`` hook carries (its ``section_rows``), if any."""
    return getattr(finalize, "section_rows", None)
