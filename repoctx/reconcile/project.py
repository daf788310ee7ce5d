"""reconcile/project — turn what a pass learned about one file into record writes.

Every function here adds operations to an open batch, so a file node and everything
projected from it commit in the same LMDB transaction: a crash loses at most the
uncommitted batch, which the next pass redoes. Symbol and cross-reference writes are
computed from the records as the batch sees them (before and after), so the reverse
index is always a function of the symbol records — whether built by the incremental
delta or seeded by the back-fill.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from repoctx.crdt.record import Record
from repoctx.errors import StoreError
from repoctx.extract import Symbol, is_test_symbol
from repoctx.store import Store
from repoctx.trees import Batch

from . import content_record, file_node, package_node, symbol_record, xref_journal
from .symbol_record import Declaration
from .xref import edges
from .xref_journal import EdgeOp


@dataclass
class Counts:
    """What the projections of a pass wrote."""

    symbols: int = 0
    warnings: list[str] = field(default_factory=list)


def declarations_of(path: str, symbols: Iterable[Symbol]) -> dict[str, Declaration]:
    """One declaration per fully-qualified name (repeated ``def``s — overloads, if/else
    twins — fold into the first, spanning to the last, with every reference)."""
    grouped: dict[str, list[Symbol]] = {}
    for sym in symbols:
        grouped.setdefault(sym.fq_name, []).append(sym)
    out = {}
    for fq, group in grouped.items():
        first = min(group, key=lambda s: s.start_line)
        refs = tuple(sorted({r for s in group for r in s.refs}))
        out[fq] = Declaration(first.kind, first.signature, first.doc, first.start_line,
                              max(s.end_line for s in group), refs,
                              any(is_test_symbol(s, path) for s in group))
    return out


class Projector:
    """Writes projections into one batch on behalf of one store."""

    def __init__(self, store: Store, batch: Batch, counts: Counts, *, xref: bool) -> None:
        self.store, self.batch, self.counts, self.xref = store, batch, counts, xref
        self.replica = store.replica_id
        self.edge_ops: list[EdgeOp] = []
        """Reverse-edge changes of this batch, journaled by ``close``."""

    def close(self) -> None:
        """Journal this batch's reverse-edge changes (inside the same transaction)."""
        xref_journal.append(self.batch, self.store, self.edge_ops)

    def _update(self, key: str, make) -> bool:
        """Merge ``make(current)`` into ``key``; True when it wrote a delta."""
        wrote = []

        def step(current: Record | None) -> Record | None:
            delta = make(current)
            wrote.append(delta is not None)
            return delta

        self.batch.update(key, step)
        return wrote[-1]

    def node(self, node: file_node.FileNode) -> None:
        """Write the file node (only the fields that changed)."""
        tick = self.store.tick()
        self._update(self.store.key("file", node.path),
                     lambda cur: file_node.node_delta(cur, node, tick, self.replica))

    def content(self, path: str, body: str, digest: str) -> bool:
        """Write the content projection; False (and a warning) if the content tree failed."""
        tick = self.store.tick()
        try:
            self._update(self.store.key("content", path),
                         lambda cur: content_record.content_delta(cur, body, digest, tick,
                                                                  self.replica))
        except StoreError as exc:
            # The content tree is a rebuildable projection: degrade, warn, heal later.
            self.counts.warnings.append(f"content not projected for {path}: {exc}")
            return False
        return True

    def symbols(self, path: str, old: Iterable[str], new: dict[str, Declaration]) -> None:
        """Make the symbol records say that ``path`` declares exactly ``new``."""
        tick = self.store.tick()
        for fq in sorted(set(old) | set(new)):
            key = self.store.key("symbol", fq)
            before = symbol_record.declarations(self.batch.get(key)) if self.xref else {}
            decl = new.get(fq)
            if decl is None:
                wrote = self._update(key, lambda cur: symbol_record.undeclare_delta(
                    cur, path, tick))
            else:
                wrote = self._update(key, lambda cur, d=decl: symbol_record.declare_delta(
                    cur, path, d, tick, self.replica))
            self.counts.symbols += wrote
            if self.xref and wrote:
                after = symbol_record.declarations(self.batch.get(key))
                self.edges(fq, edges(fq, before), edges(fq, after))

    def seed_xref(self, symbols: Iterable[str]) -> None:
        """Add the reverse edges of stored symbols (the cross-reference back-fill)."""
        for fq in symbols:
            decls = symbol_record.declarations(self.batch.get(self.store.key("symbol", fq)))
            self.edges(fq, set(), edges(fq, decls))

    def edges(self, fq: str, before: set, after: set) -> None:
        """Journal the difference between two edge sets of the symbol ``fq``."""
        self.edge_ops += [(relation, name, fq, 1) for relation, name in sorted(after - before)]
        self.edge_ops += [(relation, name, fq, -1) for relation, name in sorted(before - after)]

    def retire(self, node: file_node.FileNode) -> None:
        """Retire a deleted file: its node, content, declarations and directory entry."""
        tick = self.store.tick()
        self._update(self.store.key("file", node.path),
                     lambda cur: file_node.retire_delta(cur, tick, self.replica))
        try:
            self._update(self.store.key("content", node.path),
                         lambda cur: content_record.retire_delta(cur, tick, self.replica)
                         if cur is not None else None)
        except StoreError as exc:
            self.counts.warnings.append(f"content not retired for {node.path}: {exc}")
        if node.has(file_node.SYMBOLS):
            self.symbols(node.path, node.symbols, {})
        self.leave_directory(node.path)

    def enter_directory(self, path: str) -> None:
        """Record ``path`` under its directory, and each directory under its parent."""
        tick = self.store.tick()
        while True:
            directory, entry = package_node.parent_entry(path)
            added = self._update(self.store.key("pkg", directory),
                                 lambda cur, e=entry: package_node.add_child_delta(
                                     cur, e, tick, self.replica))
            if not added or directory == package_node.TOP:
                return
            path = directory + "/"

    def leave_directory(self, path: str) -> None:
        """Remove ``path`` from its directory, pruning directories left empty."""
        tick = self.store.tick()
        while True:
            directory, entry = package_node.parent_entry(path)
            key = self.store.key("pkg", directory)
            self._update(key, lambda cur, e=entry: package_node.remove_child_delta(cur, e, tick))
            if directory == package_node.TOP or package_node.children(self.batch.get(key)):
                return
            path = directory + "/"
