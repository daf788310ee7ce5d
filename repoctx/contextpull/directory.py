"""`contextpull/directory` — export a plain directory of documents, as ContextPull's ingest does.

The files are the repository walk's (``repoctx.reconcile.walk``: ``.gitignore``,
``.contextpullignore`` and ``.repoctxignore`` at every level, never ``.git`` nor the store
directory, never out of the root), less the ignore files themselves, binary files (a
NUL byte in the first 8 KiB) and files over ``max_bytes``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from repoctx.contextpull.documents import SourceDocument
from repoctx.contextpull.index_text import DEFAULT_INDEX_BUDGET
from repoctx.contextpull.writer import DefinitionsFor, ExportReport, Finalize, write_export
from repoctx.reconcile.walk import IGNORE_FILES, is_binary, walk

DEFAULT_MAX_BYTES = 4 * 1024 * 1024
STORE_DIRNAME = ".repoctx"

__all__ = ["DEFAULT_MAX_BYTES", "export_directory", "is_binary", "iter_documents", "iter_paths"]


def iter_paths(
    root: Path, *, store_dir: Path | None = None, max_bytes: int | None = None
) -> Iterator[str]:
    """Relative POSIX paths of the files to export under ``root``, sorted.

    ``store_dir`` (default ``root/.repoctx``) is never entered; files over ``max_bytes``
    (by the walk's ``stat``) are left out when it is given.
    """
    store = Path(store_dir) if store_dir is not None else Path(root) / STORE_DIRNAME
    for found in walk(Path(root), store_dir=store).files:
        if found.path.rpartition("/")[2] in IGNORE_FILES:  # the name; no path object per file
            continue
        if max_bytes is None or found.size <= max_bytes:
            yield found.path


def read_document(path: str | Path, max_bytes: int) -> bytes | None:
    """The bytes of ``path`` when it is an exportable text file, else ``None``."""
    try:
        with open(path, "rb") as file:  # not Path.read_bytes: ~2x the cost per file
            data = file.read()
    except OSError:
        return None  # gone or unreadable since the walk: it simply is not exported
    if len(data) > max_bytes or is_binary(data):
        return None
    return data


def iter_documents(
    root: Path, *, store_dir: Path | None = None, max_bytes: int = DEFAULT_MAX_BYTES
) -> Iterator[SourceDocument]:
    """The exportable text documents under ``root``, in path order."""
    root = Path(root)
    base = str(root)
    for rel in iter_paths(root, store_dir=store_dir, max_bytes=max_bytes):
        data = read_document(os.path.join(base, rel), max_bytes)
        if data is not None:
            yield SourceDocument(rel, data)


def export_directory(
    root: Path,
    out: Path,
    *,
    previous: Path | None = None,
    index_budget: int = DEFAULT_INDEX_BUDGET,
    definitions_for: DefinitionsFor | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    store_dir: Path | None = None,
    finalize: Finalize | None = None,
) -> ExportReport:
    """Export every document under ``root`` into the store ``out``.

    ``definitions_for(path, data)`` may supply code definitions per file (``None`` when
    it has none); it is asked only for documents sectioned afresh. Without it, code
    files are sectioned by line groups. No document token counts are stored (nothing
    here knows them, and the writer counts nothing: ``contextpull/records``).
    """
    root = Path(root)
    documents = iter_documents(root, store_dir=store_dir, max_bytes=max_bytes)
    return write_export(
        out, documents, corpus_root=str(root.resolve()), previous=previous,
        index_budget=index_budget, definitions_for=definitions_for, finalize=finalize,
    )  # fmt: skip
