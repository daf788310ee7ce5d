"""trees/isolated — read a damaged LMDB file in a child process, so its crash is a finding.

LMDB trusts its file: past the checks it makes (``MDB_CORRUPTED``, ``MDB_PAGE_NOTFOUND``)
a damaged page can still trip one of its assertions (``abort``) or a read past the end
of the file (SIGBUS), and no signal handler can resume the faulting read. The whole-store
check and the salvage therefore read in a forked child that streams its results back
through a pipe; when the child dies, the parent has every message sent before, and the
signal that killed it. Forking is safe here because the parent has not opened the
environment being read (the child opens its own) and the callers are the CLI's
single-threaded commands.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from repoctx.errors import RepoctxError, StoreFormatError

if TYPE_CHECKING:  # multiprocessing loads when a check runs, not with every store
    from multiprocessing.connection import Connection

Produce = Callable[..., Iterator[Any]]


class Crashed:
    """The end of a child that died: how (a signal name, or an exit code)."""

    def __init__(self, how: str) -> None:
        self.how = how

    def __repr__(self) -> str:
        return f"Crashed({self.how!r})"


def run_isolated(produce: Produce, *args: Any) -> Iterator[Any]:
    """Yield what ``produce(*args)`` yields, computed in a forked child; if the child
    dies before it is done, yield a final ``Crashed`` saying how."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(sender, produce, args), daemon=True)
    child.start()
    sender.close()
    done = False
    try:
        while True:
            try:
                message = receiver.recv()
            except EOFError:
                break
            if isinstance(message, _Done):
                done = True
                break
            if isinstance(message, _Failed):
                raise StoreFormatError(message.error)
            yield message
    finally:
        receiver.close()
        child.join()
    if not done:
        yield Crashed(_how(child.exitcode))


class _Done:
    """Sent last by a child that finished."""


class _Failed:
    """Sent by a child whose producer raised: the parent raises ``StoreFormatError``
    with its message (the error itself may not survive pickling)."""

    def __init__(self, error: str) -> None:
        self.error = error


def _child(sender: Connection, produce: Produce, args: tuple) -> None:
    try:
        for message in produce(*args):
            sender.send(message)
        sender.send(_Done())
    except RepoctxError as exc:  # handed to the parent, which raises it there
        sender.send(_Failed(str(exc)))
    except Exception as exc:  # a bug: the parent names it rather than the child's traceback
        sender.send(_Failed(f"internal error reading the store: {exc!r}"))
    finally:
        sender.close()


def _how(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"
