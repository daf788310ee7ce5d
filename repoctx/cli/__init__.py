"""cli — the ``repoctx`` command: the process entry, the click commands, their output
and progress.

Imported by the console script on every run, so it imports nothing heavy: ``main``
(the click group) is read from ``commands`` on first use."""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from .commands import main
    from .entry import INDEX_FLAGS, INDEX_VALUES, dispatch, plain_index, run

__all__ = [
    "INDEX_FLAGS",
    "INDEX_VALUES",
    "dispatch",
    "main",
    "plain_index",
    "run",
]

export_lazily(__name__, {
    ".commands": ("main",),
    ".entry": ("INDEX_FLAGS", "INDEX_VALUES", "dispatch", "plain_index", "run"),
})
