"""collector — run bulk work with Python's cyclic garbage collector paused.

A reconcile pass allocates millions of short-lived containers over a heap that
holds every file node, so the collector's generational scans kept walking that heap
while finding nothing: about a third of the writer's CPU on a Django index. The bulk
work builds no reference cycles (``trees.Batch`` drops its replay log for that reason),
so reference counting frees all of it. Processes forked during the call inherit the
pause and end with it.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

__all__ = ["collector_paused"]

P = ParamSpec("P")
R = TypeVar("R")


def collector_paused(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` with the cyclic collector off for each call and back on (if it was) after.

    The collector comes back once the call's frame is gone, so its first collection does
    not scan what the call held.
    """

    @functools.wraps(fn)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        enabled = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()

    return paused
