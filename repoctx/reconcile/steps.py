"""reconcile/steps — project a pass's steps (read files, cross-reference seeds, removals)
into one batch, leaving out a file whose projection fails.

A batch is one LMDB transaction, so a file that raises part-way has writes in it that
cannot be taken back alone: the batch is discarded, what its steps had changed in the
pass's ``State`` restored, and the batch written again without that file, which is
reported as skipped (``failed``) and left for the next pass. One file never stops a pass;
a failure of the store itself does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from repoctx.crdt.record import Record
from repoctx.errors import StoreBusyError, StoreFormatError, StoreIOError
from repoctx.reconcile.analyse import Analysis, Job
from repoctx.reconcile.nodes import file_node as fn
from repoctx.reconcile.project import Counts, Projector
from repoctx.reconcile.report import PassReport
from repoctx.store import Store
from repoctx.trees import Batch

if TYPE_CHECKING:
    from repoctx.reconcile.reconcile_pass import PassOptions

Live = fn.LiveNodes
"""Every live node of a pass by path, decoded only where the pass had to look inside."""


@dataclass(frozen=True, slots=True)
class Work:
    """A file to read, and what the store knew of it before."""

    job: Job
    node: fn.FileNode | None
    backfill: bool


Step = tuple[str, Any, Analysis | None]
"""``(kind, item, analysis)``: kind "work" (a ``Work`` and its analysis), "seed" or
"remove" (a ``FileNode``)."""
_STORE_WIDE = (StoreIOError, StoreFormatError, StoreBusyError)
"""Failures of the store itself, not of one file: they end the pass."""


@dataclass
class State:
    """What the steps of one pass keep up to date."""

    counts: Counts
    report: PassReport
    live: Live
    binary: dict[str, list[int]]
    """Known binary files: path -> [size, mtime_ns]."""


def not_indexed(path: str, why: str) -> str:
    """The warning for a file a pass left out, to be retried by the next."""
    return f"{path!r} not indexed ({why}); retried next pass"


def write_steps(store: Store, options: PassOptions, state: State, chunk: list[Step],
                close: Callable[[Batch], None] | None = None) -> dict[str, int]:
    """Write ``chunk`` in one batch (``close`` adds the last writes to it); returns the
    records written per tree. A file that fails is left out (see the module docstring)."""
    while True:
        saved = _Saved.take(state, chunk)
        try:
            with store.batch() as batch:
                projector = Projector(store, batch, state.counts, xref=options.xref)
                for step in chunk:
                    _run(projector, step, options, state)
                projector.close()
                if close is not None:
                    close(batch)
        except _FileFailed as failure:
            saved.restore(state)
            chunk = [step for step in chunk if _step_path(step) != failure.path]
            state.report.skip(failure.path, "failed")
            cause = failure.__cause__
            state.counts.warnings.append(not_indexed(failure.path,
                                                     f"{type(cause).__name__}: {cause}"))
            continue
        state.counts.warnings += [f"replaced a damaged record: {exc}" for exc in batch.repaired]
        return batch.written


class _FileFailed(Exception):
    """Projecting the file at ``path`` raised (the cause); the batch is to go without it."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


def _step_path(step: Step) -> str:
    """The file a step is about."""
    kind, item, _ = step
    return item.job.path if kind == "work" else item.path


def _run(projector: Projector, step: Step, options: PassOptions, state: State) -> None:
    kind, item, analysis = step
    try:
        if kind == "work":
            _apply(projector, item, analysis, options, state)
        elif kind == "seed":
            _seed(projector, item, state)
        else:
            _remove(projector, item, state)
    except _STORE_WIDE:
        raise
    except Exception as exc:
        raise _FileFailed(_step_path(step)) from exc


@dataclass
class _Saved:
    """What a batch's steps may change in ``State`` before it commits: the report and
    counts, and the live and binary entries of the batch's files."""

    report: PassReport
    symbols: int
    warnings: int
    live: dict[str, fn.FileNode | Record | None]
    binary: dict[str, list[int] | None]

    @classmethod
    def take(cls, state: State, chunk: list[Step]) -> _Saved:
        paths = [_step_path(step) for step in chunk]
        return cls(copy.deepcopy(state.report), state.counts.symbols,
                   len(state.counts.warnings), {p: state.live.get(p) for p in paths},
                   {p: state.binary.get(p) for p in paths})

    def restore(self, state: State) -> None:
        vars(state.report).update(vars(self.report))
        state.counts.symbols = self.symbols
        del state.counts.warnings[self.warnings:]
        for target, saved in ((state.live, self.live), (state.binary, self.binary)):
            for path, value in saved.items():
                if value is None:
                    target.pop(path, None)
                else:
                    target[path] = value


def _seed(projector: Projector, node: fn.FileNode, state: State) -> None:
    """Back-fill the cross-references of a file whose symbols are stored."""
    projector.seed_xref(node.symbols)
    state.live[node.path] = replace(node, markers=(*node.markers, fn.XREF))
    projector.node(state.live[node.path])
    state.report.backfilled["xref"] += 1


def _remove(projector: Projector, node: fn.FileNode, state: State) -> None:
    """Retire a file that is gone, with everything projected from it."""
    projector.retire(node)
    state.live.pop(node.path, None)
    state.report.removed += 1


def _apply(projector: Projector, item: Work, a: Analysis, options: PassOptions,
           state: State) -> None:
    """Project one analysed file."""
    node, report, live, binary = item.node, state.report, state.live, state.binary
    if a.error is not None:  # left as it was; retried next pass
        report.skip(a.path, "failed" if a.failed else "unreadable")
        if a.failed:
            report.warnings.append(not_indexed(a.path, a.error))
        return
    if a.binary:
        report.skip(a.path, "binary")
        binary[a.path] = [a.size, a.mtime_ns]
        if node is not None:
            projector.retire(node)
            live.pop(a.path, None)
        return
    binary.pop(a.path, None)
    same = node is not None and node.digest == a.digest
    if same and item.backfill:
        _backfill(projector, node, a, options, report, live)
        return
    if same and not options.full:
        live[a.path] = replace(node, size=a.size, mtime_ns=a.mtime_ns)  # touched: stat only
        projector.node(live[a.path])
        report.touched += 1
        return
    markers: list[str] = []
    if a.body is not None and projector.content(a.path, a.body, a.digest, a.links):
        markers += [fn.CONTENT, fn.LINKS]
    new_symbols: tuple[str, ...] = ()
    if a.decls is not None:
        decls = a.decls
        old = node.symbols if node is not None and node.has(fn.SYMBOLS) else ()
        projector.symbols(a.path, old, decls)
        new_symbols = tuple(sorted(decls))
        markers += [fn.SYMBOLS, fn.DECLS]
        if options.xref:
            markers.append(fn.XREF)
    if a.too_large:
        report.skip(a.path, "too-large-to-project")
    new = fn.FileNode(a.path, a.size, a.mtime_ns, a.digest, a.language,
                      a.tokens, new_symbols, tuple(markers))
    if node is None:
        projector.enter_directory(a.path)
        report.added += 1
    elif same:
        report.unchanged += 1
    else:
        report.changed += 1
    projector.node(new)
    live[a.path] = new


def _backfill(projector: Projector, node: fn.FileNode, a: Analysis, options: PassOptions,
              report: PassReport, live: Live) -> None:
    """Back-fill the projections an unchanged file is missing, in one node rewrite.

    Symbols are re-projected over what the node declared (a name no longer extracted is
    undeclared); when its cross-references were never seeded, they are seeded whole
    after, since the projection only journals the edges that changed.
    """
    markers = {m for m in node.markers if m in fn.MARKERS}  # an older DECLS goes
    tokens, symbols = node.tokens, node.symbols
    if a.body is not None and projector.content(a.path, a.body, a.digest, a.links):
        markers.update((fn.CONTENT, fn.LINKS))
        tokens = a.tokens
        report.backfilled["content"] += 1
    if a.decls is not None:
        decls = a.decls
        projector.symbols(a.path, node.symbols if node.has(fn.SYMBOLS) else (), decls)
        symbols = tuple(sorted(decls))
        if options.xref and node.has(fn.SYMBOLS) and not node.has(fn.XREF):
            projector.seed_xref(symbols)
        markers.update((fn.SYMBOLS, fn.DECLS))
        if options.xref:
            markers.add(fn.XREF)
        report.backfilled["symbols"] += 1
    new = replace(node, tokens=tokens, symbols=symbols, markers=tuple(sorted(markers)))
    projector.node(new)
    live[node.path] = new
    report.unchanged += 1
