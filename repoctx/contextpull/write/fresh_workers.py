"""`contextpull/write/fresh_workers` — a pool of fresh worker processes, its results in order.

``contextpull/write/pool.ordered_map`` runs its chunks here when it uses workers: only then are
``multiprocessing`` and ``concurrent.futures`` imported (~10 ms that a one-file
``repoctx index``, which starts no pool, does without). The workers start
fresh (``forkserver``, else ``spawn``), do not run the caller's ``__main__`` unless the
function lives there, and die with the process that started them (``die_with_starter``).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import types
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from functools import partial
from typing import TypeVar

from repoctx.errors import ContextPullError
from repoctx.reconcile.workers import die_with_starter

T = TypeVar("T")
R = TypeVar("R")


def in_order(function: Callable[[T], R], chunks: Iterator[list[T]], workers: int,
             window: int) -> Iterator[tuple[list[T], list[R]]]:
    """``(chunk, [function(item) for item in chunk])`` for each of ``chunks``, in order,
    over ``workers`` fresh processes with at most ``window`` chunks submitted and not yet
    taken. A killed worker is a ``ContextPullError``; on any error no work is left running."""
    pool = ProcessPoolExecutor(workers, mp_context=_fresh_context(function),
                               initializer=die_with_starter, initargs=(os.getpid(),))
    try:
        yield from _in_order(pool, partial(_run, function), chunks, window)
    except BrokenProcessPool as exc:  # a worker was killed (OOM, signal): no results for it
        raise ContextPullError(f"an export worker died: {exc}") from exc
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _in_order(pool: ProcessPoolExecutor, task: Callable[[T], R], args: Iterator[T],
              window: int) -> Iterator[tuple[T, R]]:
    """``(arg, task(arg))`` for each of ``args``, in order, run on ``pool`` with at most
    ``window`` tasks submitted and not yet taken, so results not yet used stay a few
    chunks however many there are."""
    pending: deque[tuple[T, Future[R]]] = deque()
    while True:
        while len(pending) < window and (arg := next(args, None)) is not None:
            pending.append((arg, pool.submit(task, arg)))
        if not pending:
            return
        arg, future = pending.popleft()
        yield arg, future.result()


def _run(function: Callable[[T], R], chunk: list[T]) -> list[R]:
    """Worker task: the function over one chunk."""
    return [function(item) for item in chunk]


_MAIN_LOCK = threading.Lock()


@contextmanager
def _main_hidden() -> Iterator[None]:
    """``sys.modules["__main__"]`` is a bare module meanwhile: a fresh worker started now
    is told of no main module to import (nothing names one; ``multiprocessing`` reads
    ``__main__``'s ``__spec__`` and ``__file__`` when it starts a process)."""
    with _MAIN_LOCK:
        main = sys.modules.get("__main__")
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            if main is None:
                del sys.modules["__main__"]
            else:
                sys.modules["__main__"] = main


_FRESH = multiprocessing.get_context(
    "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn")


class _FreshProcess(_FRESH.Process):  # type: ignore[name-defined,misc]
    """A fresh worker that does not import the caller's ``__main__``: a forkserver or
    spawn worker runs the caller's main script again (as ``__mp_main__``) before its
    first task, so a script that calls an export without an ``if __name__ ==
    "__main__":`` guard ran itself again in every worker, which then failed to start
    workers of its own; a guarded one still paid its imports once per worker."""

    @staticmethod
    def _Popen(process_obj: object) -> object:  # noqa: N802 (multiprocessing's name)
        with _main_hidden():
            return _FRESH.Process._Popen(process_obj)


class _FreshContext(type(_FRESH)):  # type: ignore[misc]
    """``_FRESH``'s start method, its workers started by ``_FreshProcess``."""

    Process = _FreshProcess


def _fresh_context(function: Callable) -> multiprocessing.context.BaseContext:
    """Where ``in_order`` starts its workers: without the caller's ``__main__``,
    unless ``function`` lives there (its workers need it to unpickle the function)."""
    if getattr(function, "__module__", None) == "__main__":
        return _FRESH
    return _FreshContext()
