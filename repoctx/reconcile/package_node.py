"""reconcile/package_node — directory and package nodes at ``repo/{id}/pkg/{path}``.

One add-wins set, ``children``: the names of the files (``name``) and directories
(``name/``) under it that hold indexed files. The repository's own top directory is
``pkg/.``. A directory is a Python package when ``__init__.py`` is among its
children. A node whose children are all gone is a tombstone.
"""

from __future__ import annotations

import posixpath

from repoctx.crdt import add_wins_set, record
from repoctx.crdt.record import Record

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


def add_child_delta(current: Record | None, entry: str, tick: int, replica: str,
                    ) -> Record | None:
    """Delta adding a child entry (None when present)."""
    state = record.field_state(current, CHILDREN, add_wins_set)
    if entry in state.entries:
        return None
    return record.write({CHILDREN: add_wins_set.add(state, entry, replica)}, tick)


def remove_child_delta(current: Record | None, entry: str, tick: int) -> Record | None:
    """Delta removing a child entry (None when absent)."""
    state = record.field_state(current, CHILDREN, add_wins_set)
    if entry not in state.entries:
        return None
    return record.write({CHILDREN: add_wins_set.remove(state, entry)}, tick)
