"""reconcile/workers — what every worker pool shares: how many workers, and workers
that die with the process that started them.

Kept apart from ``reconcile/pool`` (which imports the extractors) so that other pools
and workers (``contextpull/pool``, ``vectors/alongside``) use them without loading what
they do not run.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys


def default_workers() -> int:
    """One worker per CPU this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def die_with_parent(parent: int) -> None:
    """Worker initializer: die when the process that started the pool dies.

    A SIGKILLed indexer must not leave orphans that keep reading files and keep its
    inherited lock file open (the next indexer would wait on them forever); a killed
    export or index must not leave workers encoding or embedding for nobody (what an
    embedder committed stays; the next index resumes from there).
    """
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
