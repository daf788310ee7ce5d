"""reconcile/lock — one indexer per store at a time.

An advisory ``flock`` on ``<store>/index.lock``: a second indexer waits for the first,
or with ``wait=False`` fails at once with a message naming the holder. Readers take
no lock (LMDB gives them a snapshot). The lock dies with its process, so a killed
indexer never leaves the store locked.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from repoctx.errors import StoreBusyError


@contextmanager
def writer_lock(store_dir: Path, *, wait: bool = True) -> Iterator[None]:
    """Hold the store's indexer lock for the duration of the block."""
    store_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(store_dir / "index.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "another process"
            raise StoreBusyError(
                f"another repoctx index (pid {holder}) is writing {store_dir}; "
                "wait for it, or run again without --no-wait to queue behind it"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing releases the flock


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
