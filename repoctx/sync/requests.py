"""sync/requests — decode and check a ``sync-serve`` request body before any work starts.

A body is decoded against the shape its operation allows, never as free msgpack: a
generic decode of 8 MB of empty arrays builds 8M Python lists (about 65 bytes of memory
per byte sent). Small operations (everything but ``fetch`` and ``push``) are at most
``SMALL_BODY`` bytes and hold at most ``SMALL_OBJECTS`` containers. The two bulk
operations are read element by element from a streaming ``Unpacker`` whose array and map
limits are zero, so every element must be a scalar of the expected type and is checked
as it is read: a hostile body is refused at its first wrong element, and what is held
costs a few times the body at most. Every field is checked for type and range (no
booleans for numbers, no floats, tree names known, keys of the ``repo/ID/...`` shape);
a bad one is a ``SyncRequestError`` 400 naming it, a body over its operation's size a 413.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import msgpack

from repoctx.errors import SyncRequestError
from repoctx.trees import changelog
from repoctx.trees.keys import MAX_KEY_BYTES

SMALL_BODY = 1 << 20
"""Largest body of ``hello``, ``segments``, ``buckets``, ``entries`` and ``finish``."""
SMALL_OBJECTS = 4096
"""Most arrays and maps a small request holds."""
MAX_NAME = 256
"""Longest replica id, repository id or tree name (characters)."""
CHECK_EVERY = 4096
"""Elements of a bulk request read between two looks at the deadline."""
REPLICATED = frozenset(changelog.REPLICATED)

Deadline = Callable[[], None]
"""Raises ``SyncRequestError`` (504) once the request has run too long."""


def _bad(field: str, message: str) -> SyncRequestError:
    return SyncRequestError(400, "malformed", f"{field}: {message}")


def _int(value: Any, field: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise _bad(field, f"must be a whole number from {low} to {high}, not {value!r:.60}")
    return value


def _str(value: Any, field: str, longest: int = MAX_NAME) -> str:
    if type(value) is not str or not 0 < len(value) <= longest:
        raise _bad(field, f"must be a text of 1 to {longest} characters, not {value!r:.60}")
    return value


def _tree(value: Any, field: str) -> str:
    if type(value) is not str or value not in REPLICATED:  # type first: a list is unhashable
        raise _bad(field, f"{value!r:.60} is not a replicated tree")
    return value


def key_repo(key: str) -> str | None:
    """The repository id a ``repo/ID/...`` key names, or None when it has none."""
    parts = key.split("/", 2)
    return parts[1] if len(parts) >= 2 and parts[0] == "repo" and parts[1] else None


def _key(value: Any, field: str) -> str:
    if type(value) is not str or not 0 < len(value) <= MAX_KEY_BYTES or key_repo(value) is None:
        raise _bad(field, f"must be a repo/ID/... key of at most {MAX_KEY_BYTES} bytes, "
                          f"not {value!r:.60}")
    return value


def _list(value: Any, field: str, longest: int) -> list:
    if type(value) is not list or len(value) > longest:
        raise _bad(field, f"must be a list of at most {longest} items")
    return value


def _map(value: Any, field: str) -> dict:
    if type(value) is not dict:
        raise _bad(field, "must be a map")
    return value


def _hello(body: dict) -> dict:
    out: dict[str, Any] = {}
    if "protocol" in body:
        out["protocol"] = _int(body["protocol"], "protocol", 0, 1 << 31)
    if "format" in body:
        out["format"] = _int(body["format"], "format", 0, 1 << 31)
    for name in ("repoId", "replicaId"):
        if name in body:
            out[name] = _str(body[name], name)
    if "repoIds" in body:
        out["repoIds"] = [_str(r, "repoIds[]") for r in _list(body["repoIds"], "repoIds", 1024)]
    return out


def _segments(body: dict) -> dict:
    trees = _list(body.get("trees"), "trees", len(REPLICATED))
    return {"trees": [_tree(t, "trees[]") for t in trees]}


def _want_numbers(body: dict, highest: int, longest: int) -> dict:
    want = _map(body.get("want"), "want")
    if len(want) > len(REPLICATED):
        raise _bad("want", f"names at most {len(REPLICATED)} trees")
    return {_tree(t, "want"): [_int(n, f"want[{t}][]", 0, highest)
                               for n in _list(numbers, f"want[{t}]", longest)]
            for t, numbers in want.items()}


def _buckets(body: dict) -> dict:
    return {"want": _want_numbers(body, changelog.SEGMENTS - 1, changelog.SEGMENTS)}


def _entries(body: dict) -> dict:
    return {"want": _want_numbers(body, changelog.BUCKETS - 1, changelog.BUCKETS)}


def _finish(body: dict) -> dict:
    del body  # nothing to read: the exchange is over
    return {}


_SMALL: dict[str, Callable[[dict], dict]] = {
    "hello": _hello, "segments": _segments, "buckets": _buckets, "entries": _entries,
    "finish": _finish,
}


def _small(op: str, data: bytes | bytearray) -> dict:
    if len(data) > SMALL_BODY:
        raise SyncRequestError(413, "size", f"a {op} request is at most {SMALL_BODY} bytes")
    count = [0]

    def counted(obj: Any) -> Any:
        count[0] += 1
        if count[0] > SMALL_OBJECTS:
            raise ValueError(f"a {op} request holds at most {SMALL_OBJECTS} arrays and maps")
        return obj

    try:
        body = msgpack.unpackb(data, raw=False, strict_map_key=False, max_str_len=SMALL_BODY,
                               max_bin_len=SMALL_BODY, list_hook=counted, object_hook=counted)
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError,
            msgpack.StackError) as exc:
        raise _bad("body", f"not a sync message: {exc}") from None
    return _SMALL[op](_map(body, "body"))


class _Stream:
    """A bulk body read element by element; containers only where the shape has them."""

    def __init__(self, data: bytes | bytearray, deadline: Deadline) -> None:
        self._unpacker = msgpack.Unpacker(
            raw=False, max_buffer_size=max(len(data), 1), max_array_len=0, max_map_len=0,
            max_str_len=len(data), max_bin_len=len(data), max_ext_len=0)
        self._unpacker.feed(data)
        self._size, self._deadline, self._read = len(data), deadline, 0

    def _tick(self) -> None:
        self._read += 1
        if self._read % CHECK_EVERY == 0:
            self._deadline()

    def value(self, field: str) -> Any:
        self._tick()
        try:
            return self._unpacker.unpack()
        except msgpack.OutOfData:
            raise _bad(field, "the body ends early") from None
        except (ValueError, TypeError, msgpack.FormatError, msgpack.StackError) as exc:
            raise _bad(field, f"must be a single value ({exc})") from None

    def header(self, field: str, kind: str) -> int:
        self._tick()
        read = self._unpacker.read_map_header if kind == "map" else \
            self._unpacker.read_array_header
        try:
            n = read()
        except msgpack.OutOfData:
            raise _bad(field, "the body ends early") from None
        except (ValueError, TypeError, msgpack.FormatError, msgpack.StackError):
            raise _bad(field, f"must be a {kind} (not a sync message)") from None
        if n > self._size:  # each element takes a byte at least
            raise _bad(field, f"declares {n} items, more than the body holds")
        return n

    def end(self) -> None:
        if self._unpacker.tell() != self._size:
            raise _bad("body", "holds bytes after its message")


def _fields(stream: _Stream, allowed: set[str]) -> Iterator[str]:
    names = []
    for _ in range(stream.header("body", "map")):
        name = stream.value("body")
        if name not in allowed or name in names:
            raise _bad("body", f"a field named {name!r:.60} is not expected here")
        names.append(name)
        yield name


def _fetch(stream: _Stream) -> dict:
    want: dict[str, list[str]] = {}
    for _ in _fields(stream, {"want"}):
        trees = stream.header("want", "map")
        if trees > len(REPLICATED):
            raise _bad("want", f"names at most {len(REPLICATED)} trees")
        for _ in range(trees):
            tree = _tree(stream.value("want"), "want")
            keys = want.setdefault(tree, [])
            for _ in range(stream.header(f"want[{tree}]", "array")):
                keys.append(_key(stream.value(f"want[{tree}][]"), f"want[{tree}][]"))
    return {"want": want}


def _push(stream: _Stream) -> dict:
    records: list[list[Any]] = []
    for _ in _fields(stream, {"records"}):
        for _ in range(stream.header("records", "array")):
            if stream.header("records[]", "array") != 3:
                raise _bad("records[]", "each record is [tree, key, bytes]")
            tree = _tree(stream.value("records[][0]"), "records[][0]")
            key = _key(stream.value("records[][1]"), "records[][1]")
            raw = stream.value("records[][2]")
            if type(raw) is not bytes:
                raise _bad("records[][2]", f"must be bytes, not {type(raw).__name__}")
            records.append([tree, key, raw])
    return {"records": records}


_BULK: dict[str, Callable[[_Stream], dict]] = {"fetch": _fetch, "push": _push}
OPS = frozenset(_SMALL) | frozenset(_BULK)


def decode_request(op: str, data: bytes | bytearray,
                   deadline: Deadline = lambda: None) -> dict[str, Any]:
    """The checked body of an ``op`` request; raises ``SyncRequestError`` (400/404/413)."""
    if op not in OPS:
        raise SyncRequestError(404, "path", f"no sync request {op!r}")
    if not data:
        if op in _BULK:
            raise _bad("body", f"a {op} request needs a body")
        return _SMALL[op]({})
    if op in _SMALL:
        return _small(op, data)
    stream = _Stream(data, deadline)
    body = _BULK[op](stream)
    stream.end()
    return body


def deadline_after(seconds: float) -> Deadline:
    """A ``Deadline`` that passes ``seconds`` from now."""
    end = time.monotonic() + seconds

    def check() -> None:
        if time.monotonic() > end:
            raise SyncRequestError(504, "deadline",
                                   f"the request ran past its {seconds:g} s deadline; "
                                   "sync again, or with --max-records for smaller requests")

    return check
