"""server/bounded_calls — tool calls off the event loop, each under a deadline.

One expensive call must not stall the MCP server for every client, as a handler on
the event loop would. Here every call runs on a worker thread (at most
:data:`WORKERS` at once) under a ``repoctx.deadline`` of :attr:`BoundedCalls.seconds`
(``deadline.call_seconds()``: ``$REPOCTX_CALL_TIMEOUT`` or 10 s). The work stops itself at
the deadline (cooperative checks, SQLite progress handler, ``regex`` timeouts); the
answer is a ``CallTimeoutError`` by the deadline plus :data:`GRACE_SECONDS` even if the
thread has not stopped yet. A call whose request is cancelled, or whose client went away
(the server's task group is cancelled), has its deadline cancelled, so its thread stops
at its next check. Each worker gets its own ``Workspace`` view (own SQLite reader, own
per-call read cache) over the one shared ``Store``; LMDB serves threads itself.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from repoctx import deadline

if TYPE_CHECKING:  # the tools load on the first call, not when the server starts
    from repoctx.retrieval import Workspace

WORKERS = 4
GRACE_SECONDS = 1.0


class BoundedCalls:
    """Runs tool calls of one workspace on worker threads, each under a deadline."""

    def __init__(self, ws: Workspace, seconds: float | None = None,
                 workers: int = WORKERS) -> None:
        self.ws = ws
        self.seconds = deadline.call_seconds() if seconds is None else seconds
        self.workers = workers
        self._idle: list[Workspace] = []
        self._lock = threading.Lock()
        self._limiter: anyio.CapacityLimiter | None = None

    async def run(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The answer of tool ``name``; a ``RepoctxError`` when it fails or runs too long."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.workers)
        due = deadline.Deadline(self.seconds, name)
        result: dict[str, Any] | None = None
        try:
            with anyio.move_on_after(self.seconds + GRACE_SECONDS):
                result = await anyio.to_thread.run_sync(
                    self._run, name, arguments, due, limiter=self._limiter,
                    abandon_on_cancel=True)
        except BaseException:
            due.cancel()  # the request was cancelled or the client left: the work stops
            raise
        if result is None:  # the worker did not stop by the deadline: answer anyway
            error = due.error()
            due.cancel()
            raise error
        return result

    def _run(self, name: str, arguments: dict[str, Any],
             due: deadline.Deadline) -> dict[str, Any]:
        from repoctx.tools.registry import call

        view = self._checkout()
        try:
            with deadline.bounded(due):
                due.check()  # waited for a worker past the deadline, or cancelled meanwhile
                return call(view, name, arguments)
        finally:
            self._checkin(view)

    def _checkout(self) -> Workspace:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return self.ws.view()

    def _checkin(self, view: Workspace) -> None:
        with self._lock:
            if len(self._idle) < self.workers:
                self._idle.append(view)
        # a view beyond the pool (its worker overran) is dropped; its reader closes with it
