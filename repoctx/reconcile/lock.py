"""reconcile/lock — one indexer per store at a time; no memory write during a repair.

An advisory ``flock`` on ``<store>/index.lock``: a second indexer waits for the first,
or with ``wait=False`` fails at once with a message naming the holder. Readers take
no lock (LMDB gives them a snapshot). The lock dies with its process, so a killed
indexer never leaves the store locked.

A second ``flock``, on ``<store>/repair.lock``, keeps the writers of the trees nothing
can re-derive (memory) out of a repair: ``repair_lock`` holds it exclusively for the
whole rebuild and swap, ``writers_lock`` shares it among writers for one write. Both
wait a bounded time and then fail naming the store, so a write is refused, never lost.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from repoctx.errors import StoreBusyError


@contextmanager
def writer_lock(store_dir: Path, *, wait: bool = True) -> Iterator[None]:
    """Hold the store's indexer lock for the duration of the block."""
    with _flock(store_dir, "index.lock", fcntl.LOCK_EX, None if wait else 0.0,
                _indexer_busy) as fd:
        _record_holder(fd)
        yield


def _indexer_busy(store_dir: Path, fd: int, mode: int, wait_seconds: float) -> str:
    return (f"another repoctx index (pid {_holder(fd)}) is writing {store_dir}; "
            "wait for it, or run again without --no-wait to queue behind it")


def is_locked(store_dir: Path) -> bool:
    """True while an indexer holds the store's lock (a probe: takes and drops it)."""
    try:
        fd = os.open(store_dir / "index.lock", os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


REPAIR_LOCK = "repair.lock"
WRITE_WAIT_SECONDS = 10.0
"""How long a memory write waits for a repair before it is refused."""
REPAIR_WAIT_SECONDS = 30.0
"""How long a repair waits for the memory writes under way to finish."""
_POLL_SECONDS = 0.02


@contextmanager
def repair_lock(store_dir: Path, *, wait_seconds: float = REPAIR_WAIT_SECONDS) -> Iterator[None]:
    """Hold off every memory writer of the store for the duration of the block."""
    with _flock(store_dir, REPAIR_LOCK, fcntl.LOCK_EX, wait_seconds, _repair_busy) as fd:
        _record_holder(fd)
        yield


@contextmanager
def writers_lock(store_dir: Path, *, wait_seconds: float | None = None) -> Iterator[None]:
    """Keep a repair out for the duration of one write (writers share the lock); wait
    ``wait_seconds`` (default ``WRITE_WAIT_SECONDS``) for a repair to finish."""
    wait = WRITE_WAIT_SECONDS if wait_seconds is None else wait_seconds
    with _flock(store_dir, REPAIR_LOCK, fcntl.LOCK_SH, wait, _repair_busy):
        yield


@contextmanager
def _flock(store_dir: Path, name: str, mode: int, wait_seconds: float | None,
           busy: Callable[[Path, int, int, float], str]) -> Iterator[int]:
    """``flock(mode)`` on the lock file ``name`` of the store: blocking when
    ``wait_seconds`` is None, else retried until it passes, then ``StoreBusyError``
    with ``busy``'s message."""
    store_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(store_dir / name, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if wait_seconds is None:
            fcntl.flock(fd, mode)
        else:
            deadline = time.monotonic() + wait_seconds
            while True:
                try:
                    fcntl.flock(fd, mode | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise StoreBusyError(busy(store_dir, fd, mode, wait_seconds)) from None
                    time.sleep(_POLL_SECONDS)
        yield fd
    finally:
        os.close(fd)  # closing releases the flock


def _record_holder(fd: int) -> None:
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)


def _holder(fd: int) -> str:
    return os.pread(fd, 32, 0).decode(errors="replace").strip() or "another process"


def _repair_busy(store_dir: Path, fd: int, mode: int, wait_seconds: float) -> str:
    """Why the repair lock could not be had within ``wait_seconds``."""
    if mode == fcntl.LOCK_EX:
        return (f"memory writes to the store at {store_dir} did not finish within "
                f"{wait_seconds:g} s; stop the tools writing it and run the repair again")
    return (f"the store at {store_dir} is busy: `repoctx repair` (pid {_holder(fd)}) is "
            f"rebuilding it; nothing was written, try again when it has finished "
            f"(waited {wait_seconds:g} s)")
