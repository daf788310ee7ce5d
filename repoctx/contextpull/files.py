"""`contextpull/files` — files to export, read only when the previous export cannot vouch for them.

A directory export knows each file's size and mtime from the walk before reading it. An
export records, per document, the mtime of the stat its bytes were read after
(``repoctx_documents.mtime_ns``; the size is ``documents.bytes``) and when its stats began
to be taken (``repoctx_meta.stats_since_ns``). The next export takes a file whose stat
equals the recorded one to hold the recorded bytes (``PreviousExport.vouch``): it is not
read nor hashed, and its SHA-256 is the stored one. Any other file is read and hashed;
the same digest still reuses its rows. A recorded mtime less than ``RACY_NS`` before its
export started is never trusted (git's "racy clean" rule, as ``reconcile/walk_cache``):
a write in the same clock tick as the read could have left size and mtime unchanged.
Like git, this assumes writers move the mtime and the file system's clock is not behind
this one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from repoctx.contextpull.documents import SourceDocument
from repoctx.reconcile.walk import is_binary
from repoctx.reconcile.walk_cache import RACY_NS

__all__ = ["RACY_NS", "UnreadFile", "Vouched", "read_document", "resolve"]


def read_document(path: str, max_bytes: int) -> bytes | None:
    """The bytes of ``path`` when it is an exportable text file, else ``None``."""
    try:
        with open(path, "rb") as file:  # not Path.read_bytes: ~2x the cost per file
            data = file.read()
    except OSError:
        return None  # gone or unreadable since the walk: it simply is not exported
    if len(data) > max_bytes or is_binary(data):
        return None
    return data


@dataclass(frozen=True, slots=True)
class UnreadFile:
    """A file to export, not read yet: its document path, the size and mtime a stat gave
    before any reading, its path on disk, and the size limit for exporting it."""

    path: str
    size: int
    mtime_ns: int
    location: str
    max_bytes: int

    def read(self) -> SourceDocument | None:
        """The document, or ``None`` when the file is no longer an exportable text file."""
        data = read_document(self.location, self.max_bytes)
        return None if data is None else SourceDocument(self.path, data, mtime_ns=self.mtime_ns)


@dataclass(frozen=True, slots=True)
class Vouched:
    """A file the previous export vouches for: its rows there hold the file's bytes."""

    path: str
    sha256: str


Vouch = Callable[[UnreadFile], "str | None"]


def resolve(
    documents: Iterable[SourceDocument | UnreadFile], vouch: Vouch | None
) -> list[SourceDocument | Vouched]:
    """``documents`` with every unread file vouched for (``vouch`` gives its SHA-256) or
    read; files no longer exportable are left out."""
    resolved: list[SourceDocument | Vouched] = []
    for document in documents:
        if isinstance(document, UnreadFile):
            sha = vouch(document) if vouch is not None else None
            if sha is not None:
                resolved.append(Vouched(document.path, sha))
                continue
            read = document.read()
            if read is None:
                continue
            document = read
        resolved.append(document)
    return resolved
