"""reconcile/nodes/package_node — directory and package nodes at ``repo/{id}/pkg/{path}``.

One add-wins set, ``children``: the names of the files (``name``) and directories
(``name/``) under it that hold indexed files. The repository's own top directory is
``pkg/.``. A directory is a Python package when ``__init__.py`` is among its
children. A node whose children are all gone is a tombstone.
"""

from __future__ import annotations

import posixpath

from repoctx.crdt import add_wins_set, record
from repoctx.crdt.record import Record
from repoctx.reconcile.nodes.fields import set_change

CHILDREN = "children"
TOP = "."


def parent_entry(path: str) -> tuple[str, str]:
    """``(directory, child entry)`` for a file path or a directory path ending in ``/``."""
    is_dir = path.endswith("/")
    head, name = posixpath.split(path.rstrip("/"))
    return (head or TOP), name + ("/" if is_dir else "")


def children(rec: Record | None) -> frozenset[str]:
    """The child entries of a directory node."""
    return add_wins_set.value(record.field_state(rec, CHILDREN, add_wins_set))


def is_package(rec: Record | None) -> bool:
    """True when the directory is a Python package."""
    return "__init__.py" in children(rec)


def change_delta(current: Record | None, adds: set[str], removes: set[str], tick: int,
                 replica: str) -> Record | None:
    """Delta adding and removing child entries (None when nothing changes)."""
    state = record.field_state(current, CHILDREN, add_wins_set)
    delta, _ = set_change(state, adds, removes, replica)
    return None if delta is None else record.write({CHILDREN: delta}, tick)


def depth(directory: str) -> int:
    """How deep a directory sits (the top is shallowest)."""
    return -1 if directory == TOP else directory.count("/")
