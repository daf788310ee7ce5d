"""An in-memory `Files` for the import resolvers' tests (a dict of path -> text)."""

from __future__ import annotations

import posixpath


class MemoryFiles:
    """The repository files an import resolver may consult, held in a dict."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def exists(self, path: str) -> bool:
        """True if `path` is one of the files."""
        return path in self.files

    def read(self, path: str) -> str | None:
        """The text of `path`, or None."""
        return self.files.get(path)

    def listdir(self, directory: str) -> tuple[str, ...]:
        """The files directly inside `directory`."""
        return tuple(sorted(p for p in self.files if posixpath.dirname(p) == directory))
