"""reconcile/workers — what every worker pool shares: how many workers, and workers
that die with the process that started them (their parent, or a starter that asked a
server for them).

Kept apart from ``reconcile/pool`` (which imports the extractors) so that other pools
and workers (``contextpull/write/pool``, ``vectors/alongside``) use them without loading what
they do not run.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import sys
import threading
import time


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


def die_with_starter(starter: int) -> None:
    """Worker initializer for a worker whose parent is not the process that wants it (a
    ``forkserver`` starts the workers of every pool, and outlives a killed starter):
    a daemon thread waits for ``starter`` to exit, then ends this worker.

    Without it a SIGKILLed starter left its pool's workers blocked on their task queue
    for ever, and the server with them (each worker holds the server's liveness pipe).
    """
    try:
        handle: int | None = os.pidfd_open(starter)
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):  # no pidfd (not Linux 5.3+): look once a second
        handle = None
    threading.Thread(target=_exit_after, args=(starter, handle), daemon=True,
                     name="die-with-starter").start()


def _exit_after(starter: int, handle: int | None) -> None:
    if handle is not None:
        select.select([handle], [], [])  # readable once the process has exited
    else:
        while _running(starter):
            time.sleep(1.0)
    os._exit(1)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's (the pid was reused)
        return False
    return True
