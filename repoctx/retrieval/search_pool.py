"""retrieval/search_pool — a per-item function over forked workers, results in order.

A full build of the search tables computes, for every section of the export, the values
it is indexed with (identifier expansion, nested declarations, vocabulary words): pure
CPU work in Python, ~60% of the build on Django (issue 15). Over workers it runs on the
other cores while this process inserts the rows already computed (SQLite releases the
GIL). Workers inherit the items and the function through ``fork`` (nothing is pickled
but the results), take them in chunks, and send results back in order. Few items, one
worker or no ``fork``: the function runs in this process.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from repoctx.errors import ContextPullError

T = TypeVar("T")
R = TypeVar("R")

MIN_ITEMS = 2000
"""Below this many items the fork and the result transfer cost more than they save."""
CHUNK = 500
"""Items per task: big enough to amortise a round trip, small enough to start early."""
IN_FLIGHT = 3
"""Chunks submitted per worker ahead of the one being taken: enough to keep workers busy."""

_JOB: tuple[Callable[[Any], Any], Sequence[Any]] | None = None  # set while workers fork
_FORK_LOCK = threading.Lock()


def default_workers() -> int:
    """One worker per CPU this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _chunk(bounds: tuple[int, int]) -> list[Any]:
    """Worker task: the function over the inherited items ``[start, stop)``."""
    assert _JOB is not None, "workers are forked after the job is set"
    function, items = _JOB
    return [function(item) for item in items[bounds[0] : bounds[1]]]


def ordered_map(function: Callable[[T], R], items: Sequence[T], *,
                workers: int | None = None) -> Iterator[R]:
    """``function(item)`` for each of ``items``, in order, over forked ``workers``
    (default: one per CPU) when there are at least ``MIN_ITEMS`` items."""
    workers = default_workers() if workers is None else workers
    forkable = "fork" in multiprocessing.get_all_start_methods()
    if workers < 2 or len(items) < MIN_ITEMS or not forkable:
        yield from map(function, items)
        return
    chunks = [(i, min(i + CHUNK, len(items))) for i in range(0, len(items), CHUNK)]
    # Workers never collect garbage: a collection would touch every inherited object and
    # copy its page (fork shares them copy-on-write).
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                               initializer=gc.disable)
    try:
        yield from _in_order(pool, function, items, chunks, IN_FLIGHT * workers)
    except BrokenProcessPool as exc:  # a worker was killed (OOM, signal): no results for it
        raise ContextPullError(f"a search-index worker died: {exc}") from exc
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _in_order(pool: ProcessPoolExecutor, function: Callable[[Any], Any], items: Sequence[Any],
              chunks: list[tuple[int, int]], window: int) -> Iterator[Any]:
    """The chunks' results in order, at most ``window`` chunks submitted and not yet
    taken (results this process has not consumed stay bounded)."""
    global _JOB
    pending: deque[Future[list[Any]]] = deque()
    upcoming = iter(chunks)
    while True:
        with _FORK_LOCK:  # workers fork on a submit: they inherit this job
            _JOB = (function, items)
            try:
                while len(pending) < window and (bounds := next(upcoming, None)) is not None:
                    pending.append(pool.submit(_chunk, bounds))
            finally:
                _JOB = None
        if not pending:
            return
        yield from pending.popleft().result()
