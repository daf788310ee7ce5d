"""retrieval/index/export_refresh — refresh the ContextPull export only when what it shows changed.

``repoctx index`` runs after every edit and often over an unchanged tree; exporting
again then copies every document into an identical file (about half a second on
Django). The export is current while the trees it is made from are at the generations
they had when it was written, the embedder and the repoctx version are the same, the
export was complete (no embedding failure), and the file is still the one written.
That check reads a few store-local values and stats the file: the writer and the search
tables are imported only when an export is due, so a no-op ``repoctx index`` loads
neither.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import repoctx
from repoctx import vectors
from repoctx.store import Store
from repoctx.trees import BY_FAMILY

if TYPE_CHECKING:
    from repoctx.contextpull import ExportReport
    from repoctx.reconcile.nodes.file_node import Lent

EXPORT_NAME = "contextpull.sqlite"
"""The export's file name inside the store folder."""

SOURCES = tuple(BY_FAMILY[family].name for family in ("file", "symbol", "content"))
"""The trees an export is made from (file nodes, declarations, bodies)."""


def _name(store: Store) -> str:
    return f"export-state/{store.repo_id}"


def _sources(store: Store, root: Path) -> dict:
    return {"generations": [store.trees.generation(tree) for tree in SOURCES],
            "embedder": vectors.choose(store).name, "root": str(root.resolve()),
            "version": repoctx.__version__}  # a new version may export differently


def _file(out: Path) -> list[int] | None:
    try:
        info = os.stat(out)
    except FileNotFoundError:
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ino]


def refresh_export(store: Store, root: Path, out: Path,
                   warnings: list[str] | None = None, *,
                   nodes: Lent | None = None) -> ExportReport | None:
    """Export ``store`` to ``out`` unless the export there is current (then None).

    ``nodes``: the file nodes the pass before scanned (``PassReport.nodes``), taken
    instead of a scan while still current."""
    sources = _sources(store, root)  # read before exporting: a later write re-exports
    saved = store.trees.get_local(_name(store))
    if saved is not None and saved["sources"] == sources and saved["file"] == _file(out):
        return None
    from repoctx.contextpull import export_store
    from repoctx.retrieval.index.export_extras import export_extras

    problems: list[str] = []
    report = export_store(store, root, out, previous=out if out.exists() else None,
                          finalize=export_extras(store, problems), nodes=nodes)
    with store.batch() as batch:
        if problems:  # an incomplete export is redone next time
            batch.delete_local(_name(store))
        else:
            batch.put_local(_name(store), {"sources": sources, "file": _file(out)})
    if warnings is not None:
        warnings += problems
    return report
