"""reconcile/nodes/root_node — the repository root node at ``repo/{id}``.

LWW fields: ``files`` and ``symbols`` (counts after the last pass that changed
anything) and ``last_pass`` (a summary of that pass). A pass that changes nothing
writes nothing, the root node included.
"""

from __future__ import annotations

from typing import Any

from repoctx.crdt.record import Record
from repoctx.reconcile.nodes.fields import lww_delta, lww_value


def root_delta(current: Record | None, files: int, symbols: int, last_pass: dict[str, Any],
               tick: int, replica: str) -> Record | None:
    """Delta recording the counts and the pass that produced them."""
    return lww_delta(current, {"files": files, "symbols": symbols, "last_pass": last_pass},
                     tick, replica)


def summary(rec: Record | None) -> dict[str, Any]:
    """The root node as plain values."""
    return {"files": lww_value(rec, "files"), "symbols": lww_value(rec, "symbols"),
            "last_pass": lww_value(rec, "last_pass")}
