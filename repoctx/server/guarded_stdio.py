"""server/guarded_stdio — the SDK's stdio transport, fed through ``wire_guard``.

The SDK's ``stdio_server`` takes the stream it reads lines from; it is given
:class:`GuardedStdin`, which reads the wire (fd 0) on a worker thread, screens each line
there (``wire_guard.screen``, so a large line never blocks the event loop) and passes on
only the lines that pass. A refused line is answered on the transport's own write
stream, the one every response goes through, so frames never interleave. As the SDK
does for its own stdin, fd 0 is pointed at the null device while serving (a child
process reads EOF, never the client's messages) and restored after.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, BinaryIO

import anyio
import anyio.to_thread

from .wire_guard import Refusal, read_line, screen


class GuardedStdin:
    """An async iterator of the text lines of ``wire`` that pass ``wire_guard``; the
    refused ones are answered by ``answer`` (set once the transport's write stream is)."""

    def __init__(self, wire: BinaryIO) -> None:
        self._wire = wire
        self._answer: Any = None
        self._ready = anyio.Event()

    def answer_with(self, send: Any) -> None:
        """Answer refused lines with ``send`` (a ``SessionMessage`` sender)."""
        self._answer = send
        self._ready.set()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while True:
            line, refusal = await anyio.to_thread.run_sync(self._next)
            if not line:
                return
            if refusal is None:
                yield line.decode("utf-8")
            else:
                await self._refuse(refusal)

    def _next(self) -> tuple[bytes, Refusal | None]:
        line, cut = read_line(self._wire)
        return line, (screen(line, cut) if line else None)

    async def _refuse(self, refusal: Refusal) -> None:
        import mcp_types
        from mcp.shared.message import SessionMessage

        await self._ready.wait()
        message = mcp_types.jsonrpc_message_adapter.validate_python(refusal.response())
        await self._answer.send(SessionMessage(message))


@asynccontextmanager
async def guarded_stdio_server() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's ``stdio_server`` reading the process's stdin through the guard."""
    from mcp.server.stdio import stdio_server

    with _claimed_stdin() as wire:
        stdin = GuardedStdin(wire)
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):  # type: ignore[arg-type]
            stdin.answer_with(write_stream)
            yield read_stream, write_stream


@contextmanager
def _claimed_stdin() -> Iterator[BinaryIO]:
    """The wire on a private descriptor, fd 0 on the null device until the end."""
    try:
        fd = sys.stdin.buffer.fileno()
        private = os.dup(fd)
    except (AttributeError, OSError, ValueError):  # no real stdin: read what there is
        yield sys.stdin.buffer
        return
    os.set_inheritable(private, False)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, fd)
    os.close(null)
    # closefd=False: a worker thread may still block on it when serving ends
    wire = os.fdopen(private, "rb", closefd=False)
    try:
        yield wire
    finally:
        os.dup2(private, fd)
