"""`contextpull/write/directory` — export a plain directory of documents, as ContextPull's ingest
does.

The files are the repository walk's (``repoctx.reconcile.walk``: ``.gitignore``,
``.contextpullignore`` and ``.repoctxignore`` at every level, never ``.git`` nor the store
directory, never out of the root), less the ignore files themselves, binary files (a
NUL byte in the first 8 KiB) and files over ``max_bytes``. Files are handed to the writer
unread, with the walk's stat: a re-export reads only those whose stat the previous export
cannot vouch for (``contextpull/write/files``). What is left out is reported in the export's
``skipped``: the walk's skips (undecodable names, symlinks out of the root, unreadable
directories, special files, bounds), files over ``max_bytes`` (``too-large``), binary and
unreadable files, and a count of the entries the ignore files matched (``ignored``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

from repoctx.contextpull.write.files import TOO_LARGE, Skips, UnreadFile
from repoctx.contextpull.write.index_text import DEFAULT_INDEX_BUDGET
from repoctx.contextpull.write.writer import DefinitionsSource, ExportReport, Finalize, write_export
from repoctx.reconcile.walk import IGNORE_FILES, WalkedFile, is_binary, walk

DEFAULT_MAX_BYTES = 4 * 1024 * 1024
STORE_DIRNAME = ".repoctx"

__all__ = ["DEFAULT_MAX_BYTES", "export_directory", "is_binary", "iter_files"]


def _walked(root: Path, store_dir: Path | None, max_bytes: int | None,
            skipped: Skips | None = None) -> Iterator[WalkedFile]:
    store = Path(store_dir) if store_dir is not None else Path(root) / STORE_DIRNAME
    listing = walk(Path(root), store_dir=store)
    if skipped is not None:
        for skip in listing.skipped:
            skipped.add(skip.path, skip.reason)
        skipped.add_count("ignored", listing.ignored)
    for found in listing.files:
        if found.path.rpartition("/")[2] in IGNORE_FILES:  # the name; no path object per file
            continue
        if max_bytes is None or found.size <= max_bytes:
            yield found
        elif skipped is not None:
            skipped.add(found.path, TOO_LARGE)


def iter_files(
    root: Path, *, store_dir: Path | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
    skipped: Skips | None = None,
) -> Iterator[UnreadFile]:
    """The files to export under ``root``, in path order, with their stats, unread; what
    the walk left out is counted in ``skipped``."""
    base = str(root)
    for found in _walked(root, store_dir, max_bytes, skipped):
        location = os.path.join(base, found.path)
        yield UnreadFile(found.path, found.size, found.mtime_ns, location, max_bytes)


def export_directory(
    root: Path,
    out: Path,
    *,
    previous: Path | None = None,
    index_budget: int = DEFAULT_INDEX_BUDGET,
    definitions_for: DefinitionsSource | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    store_dir: Path | None = None,
    finalize: Finalize | None = None,
) -> ExportReport:
    """Export every document under ``root`` into the store ``out``.

    ``definitions_for(path, data)`` may supply code definitions per file (``None`` when
    it has none); it is asked only for documents sectioned afresh. Without it, code
    files are sectioned by line groups. No document token counts are stored (nothing
    here knows them, and the writer counts nothing: ``contextpull/write/records``). Each
    file's stat is recorded, so the next export reads only files whose stat changed.
    """
    root = Path(root)
    started_ns = time.time_ns()  # before the walk takes any stat (``contextpull/write/files``)
    skipped = Skips()
    files = list(iter_files(root, store_dir=store_dir, max_bytes=max_bytes, skipped=skipped))
    return write_export(
        out, files, corpus_root=str(root.resolve()), previous=previous,
        index_budget=index_budget, definitions_for=definitions_for, finalize=finalize,
        stats_since_ns=started_ns, skipped=skipped,
    )  # fmt: skip
