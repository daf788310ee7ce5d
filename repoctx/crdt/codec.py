"""crdt/codec — the shared binary frame of every CRDT type: tag, version, msgpack body.

Pure; no I/O. ``frame`` writes ``[tag, version] + msgpack(body)``; ``unframe`` checks
both bytes and returns the body, raising the CRDT layer's decoding errors.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import msgpack

from repoctx.errors import InvalidEncodingError, UnsupportedVersionError

from .tags import FORMAT_VERSION

# One packer reused: packing holds the GIL throughout and autoresets, and reusing it
# saves a third of the cost of small records (measured on the read-merge-write path).
_PACKER = msgpack.Packer(use_bin_type=True)


def pack(body: Any) -> bytes:
    """Canonical msgpack of a body (no ``bin``/``str`` ambiguity, maps as written)."""
    return _PACKER.pack(body)


def unpack(data: bytes) -> Any:
    """Decode msgpack written by ``pack``, arrays as tuples; raises ``InvalidEncodingError``."""
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=False, use_list=False)
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError,
            msgpack.StackError) as exc:
        raise InvalidEncodingError(f"not msgpack: {exc}") from exc


# A record's map (field name -> encoded field, and in an envelope its ``[family, version]``
# stamp) has one fixed shape: ``msgspec`` decodes and checks it for a third of what
# ``unpack`` costs, and writes the same bytes as ``pack`` (str keys, bin values, ints).
# Built on first use: importing msgspec is ~10 ms that a command reading no record (a
# no-op ``repoctx index``) need not pay.
@cache
def _field_codecs() -> tuple[Any, Any, Any, type[Exception]]:
    """The record-map decoder, the stamped one, the encoder, and msgspec's decode error."""
    import msgspec

    return (msgspec.msgpack.Decoder(dict[str, bytes]),
            msgspec.msgpack.Decoder(dict[str, bytes | tuple[int, int]]),
            msgspec.msgpack.Encoder(), msgspec.DecodeError)


def pack_fields(fields: dict[str, Any]) -> bytes:
    """``pack`` of a record's map: str keys, bytes values (and an int pair stamp)."""
    return _field_codecs()[2].encode(fields)


def unpack_fields(data: bytes, *, stamped: bool = False) -> dict[str, Any]:
    """A record's map: field names to bytes (``stamped``: an ``[int, int]`` allowed too);
    raises ``InvalidEncodingError`` naming what is wrong."""
    plain, with_stamp, _, decode_error = _field_codecs()
    try:
        return (with_stamp if stamped else plain).decode(data)
    except decode_error as exc:
        raise InvalidEncodingError(
            f"a record is a map of field names to encoded CRDTs: {exc}") from exc


def frame(tag: int, body: Any, version: int = FORMAT_VERSION) -> bytes:
    """The binary form of a CRDT state: tag byte, version byte, msgpack body."""
    return bytes((tag, version)) + pack(body)


_BYTES_LIKE = (bytes, bytearray, memoryview)  # a tuple: a ``|`` union is rebuilt per call


def check_header(tag: int, data: bytes, minimum: int,
                 versions: tuple[int, ...] = (FORMAT_VERSION,)) -> None:
    """Raise unless ``data`` is at least ``minimum`` bytes and starts with tag and a version
    of ``versions``."""
    if not isinstance(data, _BYTES_LIKE) or len(data) < minimum:
        raise InvalidEncodingError("too short to be a CRDT encoding")
    if data[0] != tag:
        raise InvalidEncodingError(f"type tag {data[0]} where {tag} was expected")
    if data[1] not in versions:
        raise UnsupportedVersionError(
            f"encoding version {data[1]}; this build reads version "
            f"{' or '.join(map(str, versions))}"
        )


def unframe(tag: int, data: bytes, versions: tuple[int, ...] = (FORMAT_VERSION,)) -> Any:
    """The msgpack body of ``data`` after checking its tag and version."""
    check_header(tag, data, 3, versions)
    return unpack(bytes(data[2:]))


def shape_error(type_name: str, detail: str) -> InvalidEncodingError:
    """The error for a body that unpacked but does not have the type's shape."""
    return InvalidEncodingError(f"malformed {type_name}: {detail}")
