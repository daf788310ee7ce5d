"""retrieval/search_pool — a per-item function over forked workers, results in order.

A full build of the search tables computes, for every section of the export, the values
it is indexed with (identifier expansion, nested declarations, vocabulary words): pure
CPU work in Python, ~60% of the build on Django (issue 15). Over workers it runs on the
other cores while this process inserts the rows already computed (SQLite releases the
GIL). Items are streamed: taken from their iterable in chunks and sent to the workers,
with at most ``IN_FLIGHT`` chunks per worker not yet taken back, so memory stays bounded
however many sections a tree has (a 50,000-file tree has ~360,000). The workers start
fresh (``forkserver``, else ``spawn``), not forked from this process: a forked worker
keeps every page of this process's heap that this process changes afterwards, which on
a 55,000-file tree was 0.5-0.9 GiB more in all (bench/e2e.py). Few items or one worker:
the function runs in this process.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import chain, islice
from typing import TypeVar

from repoctx.errors import ContextPullError

T = TypeVar("T")
R = TypeVar("R")

MIN_ITEMS = 2000
"""Below this many items the fork and the result transfer cost more than they save."""
CHUNK = 500
"""Items per task: big enough to amortise a round trip, small enough to start early."""
IN_FLIGHT = 3
"""Chunks sent per worker ahead of the one being taken: enough to keep workers busy."""


def default_workers() -> int:
    """One worker per CPU this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _run(function: Callable[[T], R], chunk: list[T]) -> list[R]:
    """Worker task: the function over one chunk."""
    return [function(item) for item in chunk]


def ordered_map(function: Callable[[T], R], items: Iterable[T], *,
                workers: int | None = None, chunk: int = CHUNK,
                min_items: int = MIN_ITEMS) -> Iterator[tuple[T, R]]:
    """``(item, function(item))`` for each of ``items``, in order, over ``workers``
    processes (default: one per CPU) when there are at least ``min_items`` items, sent
    ``chunk`` items a task. ``function`` and the items are sent to the workers pickled:
    ``function`` is a module-level function."""
    workers = default_workers() if workers is None else workers
    iterator = iter(items)
    head = list(islice(iterator, min_items))
    if workers < 2 or len(head) < min_items:
        for item in chain(head, iterator):
            yield item, function(item)
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    pool = ProcessPoolExecutor(workers, mp_context=context)
    try:
        yield from _in_order(pool, function, chain(head, iterator), IN_FLIGHT * workers, chunk)
    except BrokenProcessPool as exc:  # a worker was killed (OOM, signal): no results for it
        raise ContextPullError(f"a search-index worker died: {exc}") from exc
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _in_order(pool: ProcessPoolExecutor, function: Callable[[T], R], items: Iterator[T],
              window: int, size: int) -> Iterator[tuple[T, R]]:
    """The chunks' results in order (``size`` items each), at most ``window`` chunks sent
    and not yet taken."""
    pending: deque[tuple[list[T], Future[list[R]]]] = deque()
    chunks = iter(lambda: list(islice(items, size)), [])
    while True:
        while len(pending) < window and (chunk := next(chunks, None)) is not None:
            pending.append((chunk, pool.submit(_run, function, chunk)))
        if not pending:
            return
        chunk, future = pending.popleft()
        yield from zip(chunk, future.result(), strict=True)
