"""`contextpull/write/pool` — an export's per-item work over worker processes, results in order.

Sectioning, summaries and the insert tuples (``contextpull/write/encoded``) are pure
per-document CPU work, so a big export hands them to worker processes, in chunks of
documents, while the writer's process inserts the results in order; a small export
does them in process. Each chunk is one task, pickled to a fresh worker with all it
needs: its items (an unread file is read by its worker, so the writer's process never
holds the tree's bytes) and, from a definitions source that splits
(``Splits``: ``StoreDefinitions``), a source for those items alone, holding the store
records they need. Fresh workers inherit nothing: forked ones kept every page of the
writer's heap that either side touched afterwards, and a big tree's export held
~1.3 GiB at its peak, most of it copies (bench/e2e.py). Any other definitions source is
called here, before its chunk is sent, so its side effects stay in this process.
``meanwhile`` is this process's own work that needs no results (the writer loads the
tokenizer for the index): done in a thread beside the inserts (SQLite releases the
GIL), instead of after the last result.
Default: one worker per CPU, the writer's process beside them (on 2 cores this beat 1
worker and in-process work on Django, with other load on the machine; bench/). The
pool costs ~10% more CPU in all (results are pickled), so it only pays with a free core.
``ordered_map`` is the bounded, in-order window over fresh workers both use (the
search-index update uses it too, ``retrieval/index/tables``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import chain, islice
from typing import NamedTuple, Protocol, TypeVar

from repoctx.contextpull.sections.definitions import SymbolSpan
from repoctx.contextpull.sections.documents import Definition, SourceDocument
from repoctx.contextpull.write.encoded import EncodedDocument, encode
from repoctx.contextpull.write.extra_rows import ExtraRows
from repoctx.contextpull.write.files import UnreadFile
from repoctx.contextpull.write.records import DocumentRows, prepare
from repoctx.errors import ContextPullError
from repoctx.reconcile.workers import default_workers

T = TypeVar("T")
R = TypeVar("R")

DefinitionsFor = Callable[[str, bytes], "tuple[Definition, ...] | None"]
Declared = Callable[[str, str], "Sequence[SymbolSpan] | None"]
"""``(path, sha256)`` -> the store's declarations of exactly those bytes, else None (a
split definitions source's ``declared``, called in the workers)."""
# A document to section afresh (an unread file: read by the worker), or rows reused from
# another writer's export (encode only).
Item = SourceDocument | UnreadFile | DocumentRows


class Splits(Protocol):
    """A definitions source that splits: ``portion(items)`` gives one chunk's items and
    a definitions source for them alone (it may also have ``declared``), which are
    pickled together to a worker, so they share what they hold."""

    def portion(self, items: Sequence[Item]) -> tuple[Sequence[Item], DefinitionsFor]:
        """``items`` as the worker gets them, and their definitions source."""


DefinitionsSource = DefinitionsFor | Splits


class Unexported(NamedTuple):
    """An unread file the worker found no longer exportable, and why
    (``contextpull/write/files``)."""

    path: str
    reason: str


# Below this many documents the workers' start and the result transfer cost more than
# they save.
POOL_MIN_DOCUMENTS = 200
# Documents per task: big enough to amortise a task's round trip, small enough that the
# writer gets its first results early and the workers finish together.
CHUNK_DOCUMENTS = 24
# Chunks submitted per worker ahead of the one being taken: enough to keep the workers
# busy; submitting every chunk at once let a big tree's encoded documents pile up
# (workers outpace the inserts) to several times the tree's text.
IN_FLIGHT = 4


@dataclass(frozen=True)
class _Task:
    """One chunk's work, all it needs (pickled to a worker)."""

    items: Sequence[Item]
    max_chars: int
    now: str
    definitions_for: DefinitionsFor | None
    extra: ExtraRows | None = None

    @property
    def declared(self) -> Declared | None:
        """The store's declarations for ``extra``, when the definitions source has them."""
        if self.extra is None:
            return None
        return getattr(self.definitions_for, "declared", None)


def _with_definitions(document: SourceDocument, definitions_for: DefinitionsFor) -> SourceDocument:
    if document.definitions is not None:
        return document
    definitions = definitions_for(document.path, document.data)
    return document if definitions is None else replace(document, definitions=definitions)


def _encode_item(task: _Task, item: Item) -> EncodedDocument | Unexported:
    if isinstance(item, DocumentRows):
        return _encoded(task, item)
    if isinstance(item, UnreadFile):  # read here: the writer's process never holds it
        read = item.read_checked()
        if isinstance(read, str):
            return Unexported(item.path, read)
        item = read
    if task.definitions_for is not None:
        item = _with_definitions(item, task.definitions_for)
    return _encoded(task, prepare(item, task.max_chars, task.now))


def _encoded(task: _Task, rows: DocumentRows) -> EncodedDocument:
    """``rows`` encoded, with the task's extra values computed from them."""
    encoded = encode(rows)
    if task.extra is None:
        return encoded
    declared = task.declared
    found = None if declared is None else declared(rows.path, rows.sha256)
    return encoded._replace(extra=task.extra.compute(rows, found))


def _run_task(task: _Task) -> list[EncodedDocument | Unexported]:
    """A chunk's items encoded, in order (in a worker for a big export)."""
    return [_encode_item(task, item) for item in task.items]


def reads_files(definitions_for: DefinitionsSource | None) -> bool:
    """Whether ``encode_all`` may be given unread files with ``definitions_for``: the
    workers read them, so the definitions source, if any, must be one they may call
    (one that splits)."""
    return definitions_for is None or hasattr(definitions_for, "portion")


def _task(items: Sequence[Item], max_chars: int, now: str,
          definitions_for: DefinitionsSource | None, extra: ExtraRows | None) -> _Task:
    """One chunk's task: its portion of a source that splits; a source that does not is
    called here, and the task carries the definitions it gave."""
    if definitions_for is None:
        return _Task(items, max_chars, now, None, extra)
    portion = getattr(definitions_for, "portion", None)
    if portion is not None:
        items, source = portion(items)
        return _Task(items, max_chars, now, source, extra)
    if any(isinstance(item, UnreadFile) for item in items):
        raise ContextPullError("unread files need a definitions source that splits "
                               "(one with a portion method)")
    assert callable(definitions_for), "a source that does not split is a callable"
    items = [
        _with_definitions(item, definitions_for) if isinstance(item, SourceDocument) else item
        for item in items
    ]
    return _Task(items, max_chars, now, None, extra)


def encode_all(
    items: Sequence[Item],
    max_chars: int,
    now: str,
    definitions_for: DefinitionsSource | None = None,
    *,
    workers: int | None = None,
    meanwhile: Callable[[], object] | None = None,
    extra: ExtraRows | None = None,
) -> Iterator[EncodedDocument | Unexported]:
    """The encoded ``items``, in order (an unread file read first, ``Unexported`` when it
    no longer is an exportable text file); over ``workers`` fresh processes (default: one
    per CPU; fewer than 2: in process) when there are at least ``POOL_MIN_DOCUMENTS`` of
    them, running ``meanwhile()`` in a thread beside them (in process: not at all; it is
    over when this ends). With ``extra``, each document's ``EncodedDocument.extra`` is
    ``extra.compute``'s. A chunk's task is made (its portion read) only as the window
    reaches it, so this process holds a few chunks' records at a time."""
    tasks = (_task(items[i : i + CHUNK_DOCUMENTS], max_chars, now, definitions_for, extra)
             for i in range(0, len(items), CHUNK_DOCUMENTS))
    workers = default_workers() if workers is None else workers
    if workers < 2 or len(items) < POOL_MIN_DOCUMENTS:
        for task in tasks:
            yield from _run_task(task)
        return
    side = None
    if meanwhile is not None:
        side = threading.Thread(target=meanwhile, name="export-meanwhile", daemon=True)
        side.start()
    try:
        for _, encoded in ordered_map(_run_task, tasks, chunk=1, min_items=1, workers=workers):
            yield from encoded
    finally:
        if side is not None:
            side.join()


def ordered_map(function: Callable[[T], R], items: Iterable[T], *, chunk: int,
                min_items: int, workers: int | None = None) -> Iterator[tuple[T, R]]:
    """``(item, function(item))`` for each of ``items``, in order, over ``workers``
    processes (default: one per CPU) when there are at least ``min_items`` items, sent
    ``chunk`` items a task; few items or one worker: in this process.

    The items are streamed to the workers pickled (``function`` too: a module-level
    function), and the workers start fresh (``forkserver``, else ``spawn``), not forked:
    a forked worker keeps every page of this process's heap that either process changes
    afterwards, which on a 55,000-file tree was 0.5-0.9 GiB more in all (bench/e2e.py).
    The export's sectioning (``encode_all``) and the search-index update
    (``retrieval/index/tables``) use it.
    The workers do not run the caller's ``__main__`` unless ``function`` is defined
    there, and die with this process (``contextpull/write/fresh_workers``).
    """
    workers = default_workers() if workers is None else workers
    iterator = iter(items)
    head = list(islice(iterator, min_items))
    if workers < 2 or len(head) < min_items:
        for item in chain(head, iterator):
            yield item, function(item)
        return
    from repoctx.contextpull.write.fresh_workers import in_order  # its imports: only for a pool

    rest = chain(head, iterator)
    chunks = iter(lambda: list(islice(rest, chunk)), [])
    for items_, results in in_order(function, chunks, workers, IN_FLIGHT * workers):
        yield from zip(items_, results, strict=True)
