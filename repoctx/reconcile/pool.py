"""reconcile/pool — analyse many files on every core, results in submission order.

Reading, hashing, parsing and token counting run in a process pool; the caller (the
one process that writes) consumes results as they stream back. Small jobs stay in
process: a pool costs more to start than a one-file edit takes. The same pool then
computes cross-reference deltas (``xref_journal``), so no core sits idle at the end.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING

from repoctx.reconcile.analyse import Analysis, Job, analyse
from repoctx.reconcile.workers import die_with_parent

if TYPE_CHECKING:
    from concurrent.futures import Executor

POOL_THRESHOLD = 64
"""Fewer jobs than this are analysed in process."""


@contextmanager
def worker_pool(workers: int) -> Iterator[Executor | None]:
    """A pool of ``workers`` forked processes (started on first use), or None for one."""
    if workers <= 1:
        yield None
        return
    # Imported here: a one-file pass never starts a pool (multiprocessing and the process
    # executor are ~10 ms of a one-file ``repoctx index``).
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork: workers inherit the loaded modules; they never touch the parent's LMDB handle.
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context,
                             initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
        yield pool


def analyse_all(root: str, jobs: Sequence[Job], pool: Executor | None) -> Iterator[Analysis]:
    """Analyses of ``jobs`` in order, spread over ``pool`` when worth it."""
    if pool is None or len(jobs) < POOL_THRESHOLD:
        for job in jobs:
            yield analyse(root, job)
        return
    # Large chunks: the executor feeds its workers from a thread of this (busy) process,
    # so each hand-over waits for the GIL; with 8 files per chunk the workers went idle.
    yield from pool.map(partial(analyse, root), jobs, chunksize=32)
