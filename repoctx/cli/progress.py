"""cli/progress — one progress bar across a whole ``repoctx index`` and its phase clock.

The bar (tqdm, on stderr, only when stderr is a terminal) appears once the command
has run about a second, whatever the phase, and names the phase it is in: pass (the
walk), project (with a file count), export, embed. A small thread shows it and keeps
its clock moving through phases that report no steps (an export of thousands of
documents). ``Phases`` times each phase for ``--json``; ``process_seconds`` is the
wall time of the whole process.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

SHOW_AFTER = float(os.environ.get("REPOCTX_PROGRESS_AFTER", "1.0"))
"""Seconds before a bar appears: a quick run stays silent (``REPOCTX_PROGRESS_AFTER``)."""


def process_seconds() -> float:
    """Seconds since this process started (interpreter start and imports included)."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / ticks)
    except (OSError, ValueError, IndexError, AttributeError):
        return time.perf_counter() - _IMPORTED  # not Linux: from this module's import


_IMPORTED = time.perf_counter()


class Phases:
    """Seconds per phase of one command, and the bar that shows the current one."""

    def __init__(self, show: bool) -> None:
        self.seconds: dict[str, float] = {}
        self._bar: Any = None
        self._state: tuple[str, int | None, int] = ("start", None, 0)  # phase, total, done
        self._unit = "file"
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self._done = threading.Event()
        self._showing = show and sys.stderr.isatty()
        if self._showing:
            threading.Thread(target=self._tick, daemon=True).start()

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time the block as phase ``name`` and show that name on the bar."""
        start = time.perf_counter()
        self._label(name, None)
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

    def files(self, total: int, done: int) -> Callable[[int], None]:
        """The reconcile pass's progress hook: the bar counts the files it projects."""
        self._label("project", total, done)
        return self._advance

    def steps(self, name: str, unit: str) -> Callable[[int, int], None]:
        """A ``progress(done, total)`` hook for phase ``name`` counted in ``unit``s (the
        embedding back-fill's): the bar shows ``done`` of ``total``."""
        def progress(done: int, total: int) -> None:
            with self._lock:
                state = self._state
            if state[0] != name or state[1] != total:
                self._label(name, total, done, unit)
            else:
                self._advance(done - state[2])
        return progress

    def close(self) -> None:
        """Remove the bar; the command's own summary follows."""
        self._done.set()
        with self._lock:
            if self._bar is not None:
                self._bar.close()
                self._bar = None

    def _label(self, name: str, total: int | None, done: int = 0, unit: str = "file") -> None:
        with self._lock:
            self._state = (name, total, done)
            self._unit = unit
            shown = self._bar is not None
            if shown:  # a new phase gets a bar of its own shape
                self._bar.close()
            if shown or self._due():
                self._open_bar()

    def _advance(self, n: int) -> None:
        with self._lock:
            name, total, done = self._state
            self._state = (name, total, done + n)
            if self._bar is not None:
                self._bar.update(n)

    def _tick(self) -> None:
        while not self._done.wait(0.25):
            if not self._due():
                continue
            with self._lock:
                if self._done.is_set():
                    return
                if self._bar is None:
                    self._open_bar()
                else:
                    self._bar.refresh()

    def _due(self) -> bool:
        return self._showing and time.monotonic() - self._started >= SHOW_AFTER

    def _open_bar(self) -> None:
        from tqdm import tqdm  # only a run long enough to show a bar pays for it

        name, total, done = self._state
        shape = None if total else "{desc}: {elapsed}"  # a phase without steps shows its clock
        self._bar = tqdm(total=total, initial=done, desc=name, unit=self._unit, leave=False,
                         dynamic_ncols=True, bar_format=shape)
