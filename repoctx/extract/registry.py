"""extract/registry — the per-language extractor seam and the dispatch through it.

Invariants: a language without an extractor declares no symbols (an empty tuple,
never an error); the registry is process-wide and `register` replaces any previous
extractor of the same language; Python is registered by default.
"""

from __future__ import annotations

from typing import Protocol

from repoctx.extract.languages import language_of
from repoctx.extract.python import extract_python
from repoctx.extract.symbol import Symbol


class Extractor(Protocol):
    """A function from a file's relative path and decoded text to its symbols.

    It must never raise on malformed source: a file that does not parse yields
    whatever the extractor could recover, possibly nothing.
    """

    def __call__(self, path: str, text: str) -> tuple[Symbol, ...]:
        """Return the symbols declared in `text`, the contents of `path`, in source order."""
        ...


_EXTRACTORS: dict[str, Extractor] = {"python": extract_python}


def register(language: str, extractor: Extractor) -> None:
    """Make `extractor` the one used for files of `language` (as `language_of` names it)."""
    _EXTRACTORS[language] = extractor


def extractor_for(language: str | None) -> Extractor | None:
    """Return the extractor registered for `language`, or None if there is none."""
    if language is None:
        return None
    return _EXTRACTORS.get(language)


def extract(path: str, text: str) -> tuple[Symbol, ...]:
    """Extract the symbols of `text`, read from `path`, with its language's extractor.

    Returns an empty tuple when the path's language has no registered extractor.
    """
    extractor = extractor_for(language_of(path))
    if extractor is None:
        return ()
    return extractor(path, text)
