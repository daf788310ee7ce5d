"""reconcile/project — turn what a pass learned about one file into record writes.

Every method adds operations to an open batch, so a file node and everything
projected from it commit in the same LMDB transaction: a crash loses at most the
uncommitted batch, which the next pass redoes. Reverse edges are computed from the
symbol records before and after each change (so the reverse index is a function of
the symbol records), gathered for the batch and journaled in it; directory entries
are gathered too and written once per directory when the batch closes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from repoctx.crdt.record import Record
from repoctx.errors import StoreError
from repoctx.reconcile import xref_journal
from repoctx.reconcile.nodes import content_record, file_node, package_node, symbol_record
from repoctx.reconcile.nodes.symbol_record import Declaration
from repoctx.reconcile.xref import edges
from repoctx.reconcile.xref_journal import EdgeOp
from repoctx.store import Store
from repoctx.trees import Batch

Make = Callable[[Record | None], Record | None]


@dataclass
class Counts:
    """What the projections of a pass wrote, and the edge changes it journaled."""

    symbols: int = 0
    warnings: list[str] = field(default_factory=list)
    changes: xref_journal.Changes = field(default_factory=dict)
    """Every journaled edge change, folded (the journal's earlier entries first)."""
    journal_keys: set[str] = field(default_factory=set)


class Projector:
    """Writes projections into one batch on behalf of one store."""

    def __init__(self, store: Store, batch: Batch, counts: Counts, *, xref: bool) -> None:
        self.store, self.batch, self.counts, self.xref = store, batch, counts, xref
        self.replica = store.replica_id
        self.edge_ops: list[EdgeOp] = []
        self.directories: dict[str, tuple[set[str], set[str]]] = {}

    def _update(self, key: str, make: Make) -> tuple[Record | None, Record | None]:
        """Merge ``make(current)`` into ``key``; returns the record before and after."""
        seen: list[Record | None] = []

        def step(current: Record | None) -> Record | None:
            seen.append(current)
            return make(current)

        after = self.batch.update(key, step)
        return seen[-1], after

    def node(self, node: file_node.FileNode) -> None:
        """Write the file node (only the fields that changed)."""
        tick = self.store.tick()
        self._update(self.store.key("file", node.path),
                     lambda cur: file_node.node_delta(cur, node, tick, self.replica))

    def content(self, path: str, body: str | bytes, digest: str,
                links: tuple | None = None) -> bool:
        """Write the content projection (the body and its ``links``); False (and a
        warning) if the content tree failed."""
        tick = self.store.tick()
        try:
            self._update(self.store.key("content", path),
                         lambda cur: content_record.content_delta(cur, body, digest, tick,
                                                                  self.replica, links))
        except StoreError as exc:
            # The content tree is a rebuildable projection: degrade, warn, heal later.
            self.counts.warnings.append(f"content not projected for {path}: {exc}")
            return False
        return True

    def symbols(self, path: str, old: tuple[str, ...], new: dict[str, Declaration]) -> None:
        """Make the symbol records say that ``path`` declares exactly ``new``."""
        tick = self.store.tick()
        for fq in sorted(set(old) | set(new)):
            decl = new.get(fq)
            if decl is None:
                make: Make = lambda cur: symbol_record.undeclare_delta(cur, path, tick)  # noqa: E731
            else:
                make = lambda cur, d=decl: symbol_record.declare_delta(  # noqa: E731
                    cur, path, d, tick, self.replica)
            before, after = self._update(self.store.key("symbol", fq), make)
            if after is before:
                continue
            self.counts.symbols += 1
            if self.xref:
                decls = symbol_record.declarations(before)
                now = dict(decls)
                if decl is None:
                    now.pop(path, None)
                else:
                    now[path] = decl
                self.edges(fq, edges(fq, decls), edges(fq, now))

    def seed_xref(self, symbols: tuple[str, ...]) -> None:
        """Add the reverse edges of stored symbols (the cross-reference back-fill)."""
        for fq in symbols:
            decls = symbol_record.declarations(self.batch.get(self.store.key("symbol", fq)))
            self.edges(fq, set(), edges(fq, decls))

    def edges(self, fq: str, before: set, after: set) -> None:
        """Gather the difference between two edge sets of the symbol ``fq``."""
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
        """Record a new file (or directory, ending in ``/``) under its directory."""
        directory, entry = package_node.parent_entry(path)
        self.directories.setdefault(directory, (set(), set()))[0].add(entry)

    def leave_directory(self, path: str) -> None:
        """Record that a file (or directory) left its directory."""
        directory, entry = package_node.parent_entry(path)
        self.directories.setdefault(directory, (set(), set()))[1].add(entry)

    def close(self) -> None:
        """Write the gathered directory changes and journal the edge changes (same batch)."""
        self._write_directories()
        key = xref_journal.append(self.batch, self.store, self.edge_ops)
        if key is not None:
            self.counts.journal_keys.add(key)
            xref_journal.fold(self.counts.changes, self.edge_ops)

    def _write_directories(self) -> None:
        """One write per directory, deepest first; a directory that became (non-)empty
        enters (leaves) its parent in turn."""
        pending = self.directories
        while pending:
            directory = max(pending, key=package_node.depth)
            adds, removes = pending.pop(directory)
            tick = self.store.tick()
            before, after = self._update(
                self.store.key("pkg", directory),
                lambda cur, a=adds, r=removes, t=tick: package_node.change_delta(cur, a, r, t,
                                                                          self.replica))
            if directory == package_node.TOP:
                continue
            had, has = bool(package_node.children(before)), bool(package_node.children(after))
            if had != has:
                parent, entry = package_node.parent_entry(directory + "/")
                pending.setdefault(parent, (set(), set()))[0 if has else 1].add(entry)
