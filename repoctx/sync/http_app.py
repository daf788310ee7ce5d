"""sync/http_app — the ASGI application behind ``sync-serve``: checks, limits, dispatch.

``POST /v1/{op}`` with a msgpack body; the answer is a msgpack body (``protocol``).
Every request is checked before its body is read: the bearer token (compared in
constant time), the path, and a declared ``Content-Length`` (ASCII digits only, at
most ``Limits.max_body``). The body is then read in chunks under a per-chunk idle
timeout and a whole-body deadline, counting bytes as they come, so a body over the
limit is refused with 413 as soon as it crosses it, whether its length was declared
or it is streamed (chunked): it is never buffered whole. The
bodies held over all connections together are bounded too (``max_in_flight``: 503).

The body is decoded and checked against its operation's shape (``requests``) before
any work, then answered on a pool of ``Limits.workers`` threads, so one peer's large
``fetch`` never delays another's ``hello``: reads run side by side, each in its own
LMDB read transaction, while a push or a finish runs alone (``Turns``), since growing
the LMDB map under a write remaps the file every reader of this process holds. Only
answering takes turns: decoding and checking a body runs beside anything. A
request has ``Limits.request_s`` to be answered once its body is in: past it the peer
gets 504, and the decoding of a bulk body stops at its next look at the deadline. A push
may only carry keys of the repositories the server was told it may take
(``push_repos``): a key of any other is refused with 403 and nothing is written. A refusal
answers 403, a missing or wrong token 401, a malformed request 400, a slow body 408,
an oversize one 413 (these close the connection); the server never sends a
traceback. Knows nothing of sockets or TLS (``server``).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import threading
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from repoctx.errors import RepoctxError, SyncRefusedError, SyncRequestError

from .limits import DEFAULT_LIMITS, Limits
from .requests import deadline_after, decode_request, key_repo
from .transport import pack

if TYPE_CHECKING:  # the CLI reads this module's limits without loading the store side
    from .protocol import Responder

LOG = logging.getLogger("repoctx.sync.server")

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


WRITES = frozenset({"push", "finish"})
"""Operations that write to the store (and may grow its map)."""


class Turns:
    """Many readers at once, or one writer alone; a waiting writer does not hold back
    new readers, so a hello never waits behind a push queued behind a large fetch."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writing = False

    @contextmanager
    def shared(self) -> Iterator[None]:
        """Hold a reader's turn."""
        with self._cond:
            self._cond.wait_for(lambda: not self._writing)
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def alone(self) -> Iterator[None]:
        """Hold the writer's turn: no reader and no other writer meanwhile."""
        with self._cond:
            self._cond.wait_for(lambda: not self._writing and not self._readers)
            self._writing = True
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()


def parse_length(value: bytes | None) -> int | None:
    """A ``Content-Length`` header: None when absent; ASCII digits only, else a 400."""
    if value is None:
        return None
    text = value.strip()
    if not text or len(text) > 19 or not text.isdigit():
        raise SyncRequestError(400, "length",
                               f"Content-Length must be a byte count, not {value!r}")
    return int(text)


class SyncApp:
    """The ASGI application answering sync requests from one ``Responder``."""

    def __init__(self, responder: Responder, token: str | None = None,
                 limits: Limits = DEFAULT_LIMITS,
                 push_repos: frozenset[str] | None = None) -> None:
        self.responder, self.limits, self.push_repos = responder, limits, push_repos
        self._expected = f"Bearer {token}".encode() if token else None
        self._worker = ThreadPoolExecutor(max(1, limits.workers),
                                          thread_name_prefix="repoctx-sync")
        self._turns = Turns()
        self._in_flight = 0  # body bytes held now; touched only on the event loop

    def close(self) -> None:
        """Finish the request in hand and stop the worker thread."""
        self._worker.shutdown(wait=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer one HTTP request (the ASGI entry point)."""
        if scope["type"] != "http":
            return
        held = [0]
        try:
            body = await self._checked_body(scope, receive, held)
            status, answer = 200, await self._dispatch(scope["path"][4:], body)
        except SyncRequestError as exc:  # a refusal is an answer, not a failure
            status, answer = exc.status, {"error": exc.error, "message": str(exc)}
        finally:
            self._in_flight -= held[0]
        try:
            await asyncio.wait_for(_respond(send, status, answer), self.limits.body_total_s)
        except TimeoutError:  # a client that does not read: returning unfinished closes it
            LOG.warning("gave up sending a %s answer to a client that does not read it", status)

    async def _checked_body(self, scope: Scope, receive: Receive, held: list[int],
                            ) -> bytearray:
        headers = dict(scope["headers"])
        if self._expected is not None and not hmac.compare_digest(
                headers.get(b"authorization", b""), self._expected):
            raise SyncRequestError(401, "token", "a valid sync token is required")
        if scope["method"] != "POST" or not scope["path"].startswith("/v1/"):
            raise SyncRequestError(404, "path",
                                   f"no sync endpoint {scope['method']} {scope['path']}")
        declared = parse_length(headers.get(b"content-length"))
        if declared is not None and declared > self.limits.max_body:
            raise SyncRequestError(
                413, "size", f"a request is at most {self.limits.max_body} bytes "
                             f"(declared {declared})")
        return await self._read_body(receive, held)

    async def _read_body(self, receive: Receive, held: list[int]) -> bytearray:
        """The body, chunk by chunk under the limits; refused as soon as one is crossed.

        ``held[0]`` counts the bytes this request adds to every request's total in hand.
        """
        limits, body = self.limits, bytearray()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limits.body_total_s
        while True:
            wait = min(limits.body_idle_s, deadline - loop.time())
            try:
                message = await asyncio.wait_for(receive(), max(wait, 0.0))
            except TimeoutError:
                raise SyncRequestError(408, "timeout",
                                       "the request body came too slowly") from None
            if message["type"] == "http.disconnect":
                raise SyncRequestError(400, "disconnect", "the client went away mid-request")
            chunk = message.get("body", b"")
            body += chunk
            held[0] += len(chunk)
            self._in_flight += len(chunk)
            if len(body) > limits.max_body:
                raise SyncRequestError(413, "size",
                                       f"a request is at most {limits.max_body} bytes")
            if self._in_flight > limits.max_in_flight:
                raise SyncRequestError(503, "busy", "the server holds too many request bodies "
                                                    "at once; sync again shortly")
            if not message.get("more_body", False):
                return body  # not copied to bytes: a large body would be held twice

    async def _dispatch(self, op: str, data: bytearray) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        seconds = self.limits.request_s
        work = loop.run_in_executor(self._worker, self._handle, op, data,
                                    deadline_after(seconds))
        try:
            return await asyncio.wait_for(work, seconds)
        except TimeoutError:
            raise SyncRequestError(504, "deadline", f"{op} ran past its {seconds:g} s "
                                   "deadline; sync again with --max-records") from None

    def _check_scope(self, body: dict[str, Any]) -> None:
        """Refuse a push holding a key of a repository this server does not take."""
        if self.push_repos is None:
            return
        foreign = sorted({key_repo(key) or key for _, key, _ in body["records"]}
                         - self.push_repos)
        if foreign:
            raise SyncRequestError(
                403, "scope", f"this server takes pushes for {', '.join(sorted(self.push_repos))}"
                f" only, not {', '.join(foreign[:5])}; nothing was written (sync-serve "
                "--allow-repo ID adds one)")

    def _handle(self, op: str, data: bytearray, deadline: Callable[[], None],
                ) -> dict[str, Any]:
        """On a worker thread: decode and check, answer; refusals become statuses."""
        try:
            body = decode_request(op, data, deadline)
            if op == "push":
                self._check_scope(body)
            with self._turns.alone() if op in WRITES else self._turns.shared():
                deadline()  # a turn that came too late: the peer has its 504 already
                return self.responder.handle(op, body)
        except SyncRequestError:
            raise
        except SyncRefusedError as exc:
            raise SyncRequestError(403, "refused", str(exc)) from None
        except RepoctxError as exc:
            raise SyncRequestError(400, type(exc).__name__, str(exc)) from None
        except Exception as exc:  # a bug: one line on stderr, a 500 to the peer
            LOG.error("internal error answering %s (this is a bug): %r", op, exc)
            raise SyncRequestError(500, "internal", f"internal error answering {op}") from None


async def _respond(send: Send, status: int, answer: dict[str, Any]) -> None:
    data = pack(answer)
    headers = [(b"content-type", b"application/msgpack"),
               (b"content-length", str(len(data)).encode())]
    if status != 200:
        headers.append((b"connection", b"close"))  # never keep a refused client around
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})

