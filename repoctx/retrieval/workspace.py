"""retrieval/workspace — what every tool works on: a store, its repository, its export.

Opens the ContextPull export lazily and reopens it when a new export has been
renamed into place, so a long-running server always answers from the latest one.
Freshness of a file is a stat check against its file node, never a read.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PureWindowsPath
from typing import TYPE_CHECKING, Any, TypeVar

from repoctx import deadline, vectors
from repoctx.contextpull import Reader
from repoctx.crdt import Record
from repoctx.errors import NotIndexedError, StoreMissingError, ToolError
from repoctx.reconcile import FileNode, read_status
from repoctx.reconcile.nodes import content_record, file_node
from repoctx.retrieval import derived_cache
from repoctx.retrieval.call_stats import CallStats
from repoctx.retrieval.index.export_refresh import EXPORT_NAME
from repoctx.retrieval.tuning import TUNING, Tuning
from repoctx.store import Store, can_write, missing_message, open_store, store_path

if TYPE_CHECKING:
    from repoctx.extract import Links
    from repoctx.trees import Snapshot

T = TypeVar("T")
_CONTROL = re.compile("[\x00-\x1f\x7f]")
"""A control character, which no path argument may hold."""


@dataclass
class Workspace:
    """An open store with the repository root it indexes and its ContextPull export."""

    store: Store
    root: Path
    export: Path
    stats: CallStats = field(default_factory=CallStats)
    tuning: Tuning = TUNING
    """The ranking knobs every tool on this workspace uses (a benchmark may swap them)."""
    _reader: Reader | None = field(default=None, repr=False)
    _reader_id: tuple[int, int] | None = field(default=None, repr=False)
    _pinned: dict[str, Record | None] | None = field(default=None, repr=False)
    _derived: dict[str, tuple[int, Any]] = field(default_factory=dict, repr=False)
    _saved: dict[str, tuple[str, int | None]] = field(default_factory=dict, repr=False)
    """Per value kept on disk (``derived_cache``): its tree, and its size when it was
    loaded (None: derived in this process)."""
    _generations: dict[str, int] | None = field(default=None, repr=False)
    _snapshot: Snapshot | None = field(default=None, repr=False)
    _views: dict[tuple[str, Callable[[Record | None], Any]], Any] | None = field(
        default=None, repr=False)

    def reader(self) -> Reader:
        """The export's reader, reopened when a newer export replaced the file."""
        try:
            stat = os.stat(self.export)
        except OSError:
            raise ToolError(f"no ContextPull export at {self.export}; run `repoctx index` "
                            "(or `repoctx export`) first") from None
        ident = (stat.st_ino, stat.st_mtime_ns)
        if self._reader is None or ident != self._reader_id:
            if self._reader is not None:
                self._reader.close()
            embedder = vectors.choose(self.store)
            embed = None if vectors.is_none(embedder) else vectors.query_embedder(embedder)
            self._reader, self._reader_id = Reader(self.export, embed=embed), ident
        return self._reader

    def view(self) -> Workspace:
        """Another handle on the same store and export, with its own export reader and
        per-call read cache: one per thread when calls run side by side (the server)."""
        return Workspace(store=self.store, root=self.root, export=self.export, stats=self.stats,
                         tuning=self.tuning, _derived=self._derived, _saved=self._saved)

    def derived(self, name: str, tree: str, build: Callable[[], T],
                kind: Any = None) -> T:
        """A value derived from one store tree, built again once the tree's generation
        moved (any writer, any process): ``build`` runs once per generation, and the
        value is shared by every ``view`` of this workspace. Inside ``pinned()`` a tree's
        generation is read once, as its records are. With its type as ``kind`` (a
        collection msgspec decodes), the value is also kept on disk for the next process
        (``derived_cache``), saved when the workspace closes."""
        if self._generations is None or self._snapshot is None:
            generation = self.store.trees.generation(tree)
        elif tree in self._generations:
            generation = self._generations[tree]
        else:
            generation = self._generations[tree] = self._snapshot.generation(tree)
        held = self._derived.get(name)
        if held is None or held[0] != generation:
            loaded = (None if kind is None
                      else derived_cache.load(self.store, name, tree, generation, kind))
            held = self._derived[name] = (generation, build() if loaded is None else loaded)
            if kind is not None:
                self._saved[name] = (tree, None if loaded is None else len(loaded))
        return held[1]

    def kept(self, name: str, tree: str, key: Hashable, compute: Callable[[], T],
             most: int, kind: Any = None) -> T:
        """``compute()``, made once per ``key`` and generation of ``tree`` and shared by
        every later call (``derived``; ``kind``: the type of the whole mapping, to keep
        it on disk too), at most ``most`` keys held (past it they start over). The value
        is shared: never change it."""
        held = self.derived(name, tree, dict, kind)
        if key not in held:
            if len(held) >= most:
                held.clear()
            held[key] = compute()
        return held[key]

    def get(self, key: str) -> Record | None:
        """The store's visible record at ``key``; inside ``pinned()`` each key is read once.

        Every tool reads through here, so a call past its deadline stops at its next read.
        """
        deadline.check()
        if self._pinned is None or self._snapshot is None:
            return self.store.get(key)
        if key not in self._pinned:
            self._pinned[key] = self._snapshot.get(key)
        return self._pinned[key]

    def view_of(self, key: str, view: Callable[[Record | None], T]) -> T:
        """``view(self.get(key))``; inside ``pinned()`` made once per key and view, so
        a record looked up many times (a symbol's declarations, ~6,000 times by one
        ``changed`` on Django) is decoded once. The value is shared: never change it."""
        if self._views is None:
            return view(self.get(key))
        held = (key, view)
        if held not in self._views:
            self._views[held] = view(self.get(key))
        return self._views[held]

    @contextmanager
    def pinned(self) -> Iterator[Workspace]:
        """A scope (one tool call) in which every store key is read at most once, all
        from one read transaction.

        A later read of a key gets the first answer: the call sees one record per key,
        and its steps (search, expansion, packing look up the same files and symbols)
        repeat no store lookup. One transaction for the scope is one consistent view of
        the store, and costs half the reads: opening one per read was half of each of
        the ~5,000 reads a ``changed`` on Django makes. A nested scope shares the outer one.
        """
        if self._pinned is not None:
            yield self
            return
        with self.store.snapshot() as snapshot:
            self._pinned, self._generations, self._snapshot = {}, {}, snapshot
            self._views = {}
            try:
                yield self
            finally:
                self._pinned = self._generations = self._snapshot = self._views = None

    def node(self, path: str) -> FileNode | None:
        """The file node of ``path``, or None when the store does not know it."""
        rec = self.get(self.store.key("file", path))
        return None if rec is None else file_node.file_node(path, rec)

    def indexed(self) -> frozenset[str]:
        """The paths of every file the store indexes (its live file nodes), scanned once
        per generation of the file tree: an existence test without decoding a node."""
        return self.derived("indexed-paths", file_node.STRUCTURAL, lambda: frozenset(
            file_node.load_records(self.store) if self._snapshot is None
            else file_node.records_in(self.store, self._snapshot)), frozenset[str])

    def body(self, path: str) -> str | None:
        """The stored text of ``path`` (bounded as the content tree keeps it), or None."""
        return content_record.body(self.get(self.store.key("content", path)))

    def links(self, path: str) -> Links | None:
        """What the stored text of ``path`` imports, binds and re-exports, as its content
        record keeps it (a Python file written by this version), else None."""
        return content_record.links(self.get(self.store.key("content", path)))

    def repo_path(self, given: str, argument: str = "path") -> str:
        """``given`` as the repository-relative POSIX path the index uses.

        Accepts ``./x``, ``x/``, ``\\`` separators and absolute paths inside the
        repository; a path that leads outside it is a ``ToolError`` saying so. Glob
        characters pass through untouched. A control character (U+0000-U+001F, U+007F)
        is a ``ToolError`` naming it, as normalising around it would name another file;
        only a file the index holds under exactly that name (a tab or newline) passes.
        """
        bad = _CONTROL.search(given)
        if bad is not None and (bad.group() == "\0" or self.node(given) is None):
            raise ToolError(f"{argument}: {given!r} holds the control character "
                            f"U+{ord(bad.group()):04X} at offset {bad.start()}; a "
                            "repository path has none (U+0000-U+001F, U+007F): remove it")
        if ("\\" in given or bad is not None) and self.node(given) is not None:
            return given  # a POSIX name may hold a backslash: the index knows it as it is
        text = given.replace("\\", "/")
        outside = ToolError(f"{argument}: {given!r} is outside the repository {self.root}")
        if posixpath.isabs(text) or PureWindowsPath(given).drive:
            absolute = Path(os.path.normpath(text))
            inside = [r for r in (self.root, self.root.resolve())
                      if absolute == r or r in absolute.parents]
            if not inside:
                raise outside
            text = absolute.relative_to(inside[0]).as_posix()
        normal = posixpath.normpath(text)
        if normal == ".." or normal.startswith("../"):
            raise outside
        return "" if normal == "." else normal

    def is_fresh(self, path: str, node: FileNode | None = None) -> bool:
        """True when the file on disk still has the size and mtime the store indexed."""
        node = node or self.node(path)
        if node is None:
            return False
        try:
            stat = os.stat(self.root / path)
        except OSError:
            return False
        return (stat.st_size, stat.st_mtime_ns) == (node.size, node.mtime_ns)

    def close(self) -> None:
        """Keep what grew of the values kept on disk, close the export reader and the store."""
        for name, (tree, loaded) in self._saved.items():
            generation, value = self._derived[name]
            if len(value) > (loaded or 0):
                derived_cache.save(self.store, name, tree, generation, value)
        if self._reader is not None:
            self._reader.close()
        self.store.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_workspace(root: str | Path, *, store_dir: str | Path | None = None,
                   repo_id: str | None = None, export: str | Path | None = None,
                   writable: bool | None = None) -> Workspace:
    """Open the indexed store of the repository at ``root`` for the tools.

    Never creates a store: a repository that was never indexed is a ``NotIndexedError``.
    ``writable=None`` opens for writing only where this process may write the store
    (memory, sessions and refreshes then work); ``False`` always opens read-only, as a
    reader on a read-only disk or another user's store must. A write to a read-only
    workspace is a ``StoreReadOnlyError`` naming the store.
    """
    base = Path(root).resolve()
    directory = store_path(base, store_dir)
    if writable is None:
        writable = can_write(directory)  # False where there is no store: the open says so
    try:
        store = open_store(base, repo_id=repo_id, store_dir=directory, readonly=not writable,
                           create=False)
    except StoreMissingError as exc:
        raise NotIndexedError(str(exc)) from None
    if store.get(store.key()) is None and not read_status(directory):  # no pass ever ran
        store.close()
        raise NotIndexedError(missing_message(base))
    path = Path(export) if export is not None else store.path / EXPORT_NAME
    return Workspace(store, base, path)
