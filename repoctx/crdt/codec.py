"""crdt/codec — the shared binary frame of every CRDT type: tag, version, msgpack body.

Pure; no I/O. ``frame`` writes ``[tag, version] + msgpack(body)``; ``unframe`` checks
both bytes and returns the body, raising the CRDT layer's decoding errors.
"""

from __future__ import annotations

from typing import Any

import msgpack

from repoctx.errors import InvalidEncodingError, UnsupportedVersionError

from .tags import FORMAT_VERSION


def pack(body: Any) -> bytes:
    """Canonical msgpack of a body (no ``bin``/``str`` ambiguity, maps as written)."""
    return msgpack.packb(body, use_bin_type=True)


def unpack(data: bytes) -> Any:
    """Decode msgpack written by ``pack``; raises ``InvalidEncodingError``."""
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=False, use_list=True)
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError,
            msgpack.StackError) as exc:
        raise InvalidEncodingError(f"not msgpack: {exc}") from exc


def frame(tag: int, body: Any) -> bytes:
    """The binary form of a CRDT state: tag byte, version byte, msgpack body."""
    return bytes((tag, FORMAT_VERSION)) + pack(body)


def unframe(tag: int, data: bytes) -> Any:
    """The msgpack body of ``data`` after checking its tag and version."""
    if not isinstance(data, bytes | bytearray | memoryview) or len(data) < 3:
        raise InvalidEncodingError("too short to be a CRDT encoding")
    if data[0] != tag:
        raise InvalidEncodingError(f"type tag {data[0]} where {tag} was expected")
    if data[1] != FORMAT_VERSION:
        raise UnsupportedVersionError(
            f"encoding version {data[1]}; this build reads version {FORMAT_VERSION}"
        )
    return unpack(bytes(data[2:]))


def freeze(raw: Any) -> Any:
    """msgpack lists come back as lists; states hold tuples so they stay immutable."""
    if isinstance(raw, list):
        return tuple(freeze(x) for x in raw)
    return raw


def shape_error(type_name: str, detail: str) -> InvalidEncodingError:
    """The error for a body that unpacked but does not have the type's shape."""
    return InvalidEncodingError(f"malformed {type_name}: {detail}")
