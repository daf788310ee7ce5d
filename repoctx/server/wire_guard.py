"""server/wire_guard — every line read from the MCP client is screened before the SDK
parses it, so a message the SDK would drop unanswered gets its JSON-RPC error instead.

The SDK's stdio transport reads whole lines without a bound and, when its parser refuses
one (nesting too deep for it, a lone surrogate escape, not JSON at all), passes the
exception on with no request id: the client waits forever. Here each line is read with a
bound (:data:`MAX_LINE_BYTES`; the rest of a longer line is skipped as it arrives), parsed
once by the standard library, walked with a bound on nesting (:data:`MAX_DEPTH`) and on
values (:data:`MAX_VALUES`), and checked against the SDK's own message model. A line that
fails is answered at once with the request's id, when it can be found:

- ``-32700`` (parse error): not UTF-8, not JSON, or text no UTF-8 can carry (a lone
  surrogate such as ``"\\ud800"``: JSON's grammar admits the escape, but it names no
  character, and the SDK's parser refuses it as unparseable too);
- ``-32602`` (invalid params): JSON, but nested too deep or too big;
- ``-32600`` (invalid request): JSON the SDK does not take as a JSON-RPC message.

Only lines that pass reach the SDK, so what it parses is bounded in size and depth.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, BinaryIO

MAX_LINE_BYTES = 4 * 1024 * 1024
"""Longest message line taken (the largest legitimate call is well under 1 MiB)."""
MAX_DEPTH = 64
"""Deepest nesting of arrays and objects taken in a message, the envelope included."""
MAX_VALUES = 20_000
"""Most JSON values (strings, numbers, items, members) taken in one message."""

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

_CHUNK = 1024 * 1024
_HEAD = 4096  # bytes of an over-long line kept to find its id in


@dataclass(frozen=True, slots=True)
class Refusal:
    """The JSON-RPC error a refused line is answered with (``id`` None: not found)."""

    code: int
    message: str
    id: int | str | None = None

    def response(self) -> dict[str, Any]:
        """The error response, as a JSON-RPC object."""
        return {"jsonrpc": "2.0", "id": self.id,
                "error": {"code": self.code, "message": self.message}}


def read_line(stream: BinaryIO) -> tuple[bytes, bool]:
    """The next line of ``stream`` (``b""`` at its end) and whether it was cut: a line
    over :data:`MAX_LINE_BYTES` is read to its end but only its first bytes are kept."""
    line = stream.readline(MAX_LINE_BYTES + 1)
    if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
        return line, False
    while True:
        rest = stream.readline(_CHUNK)
        if not rest or rest.endswith(b"\n"):
            return line[:_HEAD], True


def screen(line: bytes, cut: bool = False) -> Refusal | None:
    """Why ``line`` (one message, read by :func:`read_line`) is refused; None if it is
    taken. A blank line is taken (the SDK skips it)."""
    if cut:
        return Refusal(INVALID_PARAMS, f"message too large: over {MAX_LINE_BYTES} bytes; "
                       "send smaller arguments", _head_id(line))
    if not line.strip():
        return None
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Refusal(PARSE_ERROR, f"parse error: not UTF-8 text (byte {exc.start}); "
                       "send UTF-8 encoded JSON", _head_id(line))
    try:
        message = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        return Refusal(INVALID_PARAMS, f"message nested too deep: more than {MAX_DEPTH} "
                       "levels of arrays and objects; send flatter arguments", _head_id(line))
    except ValueError as exc:
        return Refusal(PARSE_ERROR, f"parse error: not JSON ({exc})", _head_id(line))
    ident = _id_of(message)
    problem = _first_problem(message)
    if problem is not None:
        return Refusal(problem[0], problem[1], ident)
    return _sdk_refusal(text, ident)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _first_problem(message: Any) -> tuple[int, str] | None:
    """What is wrong with a parsed message: too deep, too many values or text that is
    not Unicode; walked without recursion and stopped at the first bound passed."""
    stack: list[tuple[Any, int]] = [(message, 1)]
    values = 0
    while stack:
        value, depth = stack.pop()
        values += len(value) if isinstance(value, (dict, list)) else 0
        if values > MAX_VALUES:  # counted before the items are walked: O(1) for one array
            return INVALID_PARAMS, (f"message too big: more than {MAX_VALUES} JSON values; "
                                    "send fewer items")
        if isinstance(value, str):
            if not _is_unicode(value):
                return PARSE_ERROR, ("parse error: a lone surrogate escape (such as "
                                     "\\ud800) names no character; send UTF-8 text")
        elif isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                return INVALID_PARAMS, (f"message nested too deep: more than {MAX_DEPTH} "
                                        "levels of arrays and objects; send flatter arguments")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                stack.append((item, depth + 1))
                if isinstance(key, str):
                    stack.append((key, depth + 1))
    return None


def _is_unicode(text: str) -> bool:
    """False for text holding a surrogate, which no UTF-8 can carry."""
    return _SURROGATE.search(text) is None


_SURROGATE = re.compile("[\ud800-\udfff]")


def _sdk_refusal(text: str, ident: int | str | None) -> Refusal | None:
    """The SDK's own parser on a line that passed the bounds: what it refuses is answered
    here, since it would go unanswered there."""
    import mcp_types

    try:
        mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValueError as exc:
        errors = exc.errors() if hasattr(exc, "errors") else []
        detail = errors[0].get("msg", "") if errors else type(exc).__name__
        return Refusal(INVALID_REQUEST, f"invalid request: not a JSON-RPC message ({detail})",
                       ident)
    return None


def _id_of(message: Any) -> int | str | None:
    """The id of a parsed request, when it has one a response can carry."""
    if not isinstance(message, dict):
        return None
    ident = message.get("id")
    if isinstance(ident, bool) or not isinstance(ident, (int, str)):
        return None
    return ident if not isinstance(ident, str) or _is_unicode(ident) else None


def _head_id(line: bytes) -> int | str | None:
    """The id of a request that cannot be parsed whole, read from the members before the
    first one that fails to parse (clients send ``jsonrpc`` and ``id`` first)."""
    text = line[:_HEAD].decode("utf-8", errors="replace")
    decoder = json.JSONDecoder()
    at = text.find("{") + 1
    if at == 0 or text[:at - 1].strip():
        return None
    try:
        while True:
            key, at = _member(decoder, text, at)
            value, at = decoder.raw_decode(text, _skip(text, at, ":"))
            if key == "id":
                return _id_of({"id": value})
            at = _skip(text, at, ",")
    except (ValueError, RecursionError, IndexError):
        return None


def _member(decoder: json.JSONDecoder, text: str, at: int) -> tuple[Any, int]:
    while text[at].isspace():
        at += 1
    return decoder.raw_decode(text, at)


def _skip(text: str, at: int, separator: str) -> int:
    """The index after ``separator`` (whitespace around it allowed)."""
    while text[at].isspace():
        at += 1
    if text[at] != separator:
        raise ValueError(f"expected {separator!r}")
    at += 1
    while text[at].isspace():
        at += 1
    return at
