"""`contextpull/write/files` — files to export, read only when the previous export cannot vouch for
them.

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
this one. A file left out is counted in ``Skips`` with its reason (``binary``,
``too-large``, ``unreadable``, or the walk's), so an export can say what it skipped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from typing import Any

from repoctx.contextpull.sections.documents import SourceDocument
from repoctx.reconcile.walk import is_binary
from repoctx.reconcile.walk_cache import RACY_NS

__all__ = ["BINARY", "RACY_NS", "TOO_LARGE", "UNREADABLE", "Skips", "UnreadFile",
           "Vouched", "read_checked", "resolve"]

BINARY, TOO_LARGE, UNREADABLE = "binary", "too-large", "unreadable"
_PATHS_PER_REASON = 20


@dataclass
class Skips:
    """Files an export left out: a count per reason and the first paths of each."""

    counts: Counter[str] = field(default_factory=Counter)
    paths: dict[str, list[str]] = field(default_factory=dict)

    def add(self, path: str, reason: str) -> None:
        """Count ``path`` as left out for ``reason``."""
        self.counts[reason] += 1
        shown = self.paths.setdefault(reason, [])
        if len(shown) < _PATHS_PER_REASON:
            shown.append(path)

    def add_count(self, reason: str, count: int) -> None:
        """Count ``count`` entries left out for ``reason`` without naming them."""
        if count:
            self.counts[reason] += count

    def reset_to(self, earlier: Skips) -> None:
        """Forget what was added since ``earlier``, a copy of this one, was taken."""
        for name in (f.name for f in fields(self)):
            setattr(self, name, getattr(earlier, name))

    def as_json(self) -> dict[str, Any]:
        """``{"skipped": {reason: count}, "skippedPaths": {reason: [path, ...]}}``."""
        return {"skipped": dict(sorted(self.counts.items())),
                "skippedPaths": {r: list(p) for r, p in sorted(self.paths.items())}}

    def text(self) -> str:
        """``"2 binary, 1 too-large"``, or ``"none"``."""
        return ", ".join(f"{n} {r}" for r, n in sorted(self.counts.items())) or "none"


def read_checked(path: str, max_bytes: int) -> bytes | str:
    """The bytes of ``path`` when it is an exportable text file, else why it is not
    (``UNREADABLE``, ``TOO_LARGE`` or ``BINARY``)."""
    try:
        with open(path, "rb") as file:  # not Path.read_bytes: ~2x the cost per file
            data = file.read()
    except OSError:
        return UNREADABLE  # gone or unreadable since the walk: it simply is not exported
    if len(data) > max_bytes:
        return TOO_LARGE
    return BINARY if is_binary(data) else data


@dataclass(frozen=True, slots=True)
class UnreadFile:
    """A file to export, not read yet: its document path, the size and mtime a stat gave
    before any reading, its path on disk, and the size limit for exporting it."""

    path: str
    size: int
    mtime_ns: int
    location: str
    max_bytes: int

    def read_checked(self) -> SourceDocument | str:
        """The document, or why the file is no longer an exportable text file."""
        data = read_checked(self.location, self.max_bytes)
        if isinstance(data, str):
            return data
        return SourceDocument(self.path, data, mtime_ns=self.mtime_ns)


@dataclass(frozen=True, slots=True)
class Vouched:
    """A file the previous export vouches for: its rows there hold the file's bytes."""

    path: str
    sha256: str


Vouch = Callable[[UnreadFile], "str | None"]


def resolve(
    documents: Iterable[SourceDocument | UnreadFile], vouch: Vouch | None,
    skipped: Skips | None = None,
) -> list[SourceDocument | Vouched]:
    """``documents`` with every unread file vouched for (``vouch`` gives its SHA-256) or
    read; files no longer exportable are left out (and counted in ``skipped``)."""
    resolved: list[SourceDocument | Vouched] = []
    for document in documents:
        if isinstance(document, UnreadFile):
            sha = vouch(document) if vouch is not None else None
            if sha is not None:
                resolved.append(Vouched(document.path, sha))
                continue
            read = document.read_checked()
            if isinstance(read, str):
                if skipped is not None:
                    skipped.add(document.path, read)
                continue
            document = read
        resolved.append(document)
    return resolved
