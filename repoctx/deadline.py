"""deadline — one tool call's time bound, held in a context variable and checked cooperatively.

A call runs inside :func:`bounded`; the code it reaches checks :func:`check` in its long
loops, bounds third-party waits by :func:`remaining` (the ``regex`` package's
``timeout=``), and every read-only SQLite connection carries :func:`interrupt_when_due`
as its progress handler, which stops a running statement once the deadline has passed.
A deadline can also be cancelled from another thread (the client went away): from then
on it counts as expired. Outside :func:`bounded` nothing is bounded and checks are free.
Imports only ``repoctx.errors``; threads each see their own deadline.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from repoctx.errors import CallTimeoutError, ToolError

DEFAULT_CALL_SECONDS = 10.0
CALL_SECONDS_ENV = "REPOCTX_CALL_TIMEOUT"

SQLITE_PROGRESS_OPS = 4096
"""SQLite virtual-machine steps between two deadline checks of a running statement."""


def call_seconds(environ: dict[str, str] | None = None) -> float:
    """One tool call's bound in seconds: ``$REPOCTX_CALL_TIMEOUT``, else the default.

    Every door (the MCP server, ``repoctx call``) bounds a call by this figure.
    """
    raw = (os.environ if environ is None else environ).get(CALL_SECONDS_ENV, "").strip()
    if not raw:
        return DEFAULT_CALL_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < 86_400:
        raise ToolError(f"{CALL_SECONDS_ENV}: must be a number of seconds above 0 "
                        f"(got {raw!r})")
    return seconds


class Deadline:
    """A point in monotonic time after which the call must stop, or an earlier cancel."""

    def __init__(self, seconds: float, what: str = "the call",
                 parent: Deadline | None = None) -> None:
        self.seconds = seconds
        self.what = what
        self.expires = time.monotonic() + seconds
        self.parent = parent
        """The enclosing call's deadline: cancelling it cancels this one too."""
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        """Expire now (thread-safe): the caller no longer wants the answer."""
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called (here or on the parent)."""
        return self._cancelled.is_set() or (self.parent is not None and self.parent.cancelled)

    def remaining(self) -> float:
        """Seconds left (0.0 once expired or cancelled)."""
        if self.cancelled:
            return 0.0
        return max(0.0, self.expires - time.monotonic())

    def expired(self) -> bool:
        """True past the deadline or after a cancel."""
        return self.cancelled or time.monotonic() >= self.expires

    def error(self) -> CallTimeoutError:
        """The tool error telling the caller the call was stopped, and what to do."""
        if self.cancelled:
            return CallTimeoutError(f"{self.what} was cancelled (the caller went away)")
        return CallTimeoutError(
            f"{self.what} took longer than {self.seconds:g} s and was stopped; narrow the "
            "query (fewer or more specific words, a path filter, a smaller limit, a "
            "literal pattern) and call again"
        )

    def check(self) -> None:
        """Raise :class:`CallTimeoutError` once expired."""
        if self.expired():
            raise self.error()


_CURRENT: ContextVar[Deadline | None] = ContextVar("repoctx_deadline", default=None)


def current() -> Deadline | None:
    """The deadline of the running call, or None outside :func:`bounded`."""
    return _CURRENT.get()


@contextmanager
def bounded(seconds: float | Deadline | None, what: str = "the call") -> Iterator[Deadline | None]:
    """Run the block under a deadline ``seconds`` from now (None: unbounded).

    A nested scope never extends the outer one: the earlier deadline wins. An exception
    leaving the block once the deadline has passed (an interrupted SQLite statement, a
    ``regex`` timeout) becomes the deadline's :class:`CallTimeoutError`.
    """
    if seconds is None:
        yield current()
        return
    outer = current()
    deadline = seconds if isinstance(seconds, Deadline) else Deadline(seconds, what, outer)
    if outer is not None and outer.expires < deadline.expires:
        deadline = outer
    token = _CURRENT.set(deadline)
    try:
        yield deadline
    except CallTimeoutError:
        raise
    except Exception as exc:
        raise_if_due(exc)  # the block's deadline is still the current one here
        raise
    finally:
        _CURRENT.reset(token)


def check() -> None:
    """Raise :class:`CallTimeoutError` when the running call is past its deadline."""
    deadline = current()
    if deadline is not None:
        deadline.check()


def remaining(cap: float) -> float:
    """Seconds the running call may still spend, at most ``cap`` (never quite zero)."""
    deadline = current()
    return cap if deadline is None else max(0.001, min(cap, deadline.remaining()))


def interrupt_when_due() -> int:
    """A SQLite progress handler: non-zero (interrupt the statement) once the call is due."""
    deadline = current()
    return 1 if deadline is not None and deadline.expired() else 0


def raise_if_due(exc: BaseException) -> None:
    """Re-raise ``exc`` as the deadline's error when it came from the deadline stopping work."""
    deadline = current()
    if deadline is not None and deadline.expired():
        raise deadline.error() from exc
