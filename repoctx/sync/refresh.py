"""sync/refresh — bring derived state up to date after records were merged in.

The cross-reference tree is re-derived during the merge itself (``receive``); what is
left is the ContextPull export, which is regenerated — reusing unchanged documents —
when the store has one, and built when it has none and ``build`` is asked for (the
replica ``repoctx sync`` just filled answers tools at once, and ``check`` finds it whole).
The vector index and coverage trees are derived and local: they are never shipped,
and the vector back-fill rebuilds them from the merged membership, payload and
metadata trees.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from repoctx.contextpull import ExportReport, export_store
from repoctx.retrieval import EXPORT_NAME
from repoctx.store import Store


def export_path(store: Store) -> Path:
    """Where the store's ContextPull export lives."""
    return store.path / EXPORT_NAME


def refresh_export(store: Store, root: Path, out: Path | None = None, *,
                   build: bool = False) -> ExportReport | None:
    """Regenerate the ContextPull export of ``store`` (files under ``root``) if it exists;
    build it if it does not and ``build`` is true."""
    out = export_path(store) if out is None else out
    if out.is_file():
        return export_store(store, root, out, previous=out)
    return export_store(store, root, out) if build else None


def refresher(root: Path, out: Path | None = None, *,
              build: bool = False) -> Callable[[Store, int], None]:
    """An ``on_finish``/``on_merged`` callback that refreshes (or ``build``s) the export
    under ``root``."""

    def refresh(store: Store, merged: int) -> None:
        del merged  # any merge may change what the export shows
        refresh_export(store, root, out, build=build)

    return refresh
