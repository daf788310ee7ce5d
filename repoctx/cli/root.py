"""cli/root — which repository a command means when it is given no PATH.

As git finds its root: from the current folder upward, the nearest folder holding a
store, else the nearest holding ``.git`` (``store.enclosing_root``). So ``repoctx call``
from ``src/pkg/`` answers from the repository's store, and ``repoctx index`` there indexes
the whole repository instead of starting a second, partial store. Shared by the click
commands and the plain ``repoctx index`` path, which imports no click.
"""

from __future__ import annotations

from pathlib import Path


def default_root(store_dir: Path | None) -> Path:
    """The repository of a command given no PATH: the current folder's enclosing one, or
    the current folder itself when ``--store`` names the store."""
    if store_dir is not None:
        return Path(".")
    from repoctx.store import enclosing_root  # the store layer, only when it is needed

    return enclosing_root(Path.cwd())
