"""reconcile/pool — analyse many files on every core, results in submission order.

Reading, hashing, parsing and token counting run in a process pool; the caller (the
one process that writes) consumes results as they stream back. Small jobs stay in
process: a pool costs more to start than a one-file edit takes.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial

from .analyse import Analysis, Job, analyse

POOL_THRESHOLD = 64
"""Fewer jobs than this are analysed in process."""


def default_workers() -> int:
    """One worker per core."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def _die_with_parent(parent: int) -> None:
    """Worker initializer: die when the indexer dies.

    A SIGKILLed indexer must not leave orphans that keep reading files and keep its
    inherited lock file open (the next indexer would wait on them forever).
    """
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def analyse_all(root: str, jobs: Sequence[Job], workers: int) -> Iterator[Analysis]:
    """Analyses of ``jobs`` in order, spread over ``workers`` processes when worth it."""
    if workers <= 1 or len(jobs) < POOL_THRESHOLD:
        for job in jobs:
            yield analyse(root, job)
        return
    # fork: workers inherit the loaded modules; they never touch the parent's LMDB handle.
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context,
                             initializer=_die_with_parent, initargs=(os.getpid(),)) as pool:
        yield from pool.map(partial(analyse, root), jobs, chunksize=8)
