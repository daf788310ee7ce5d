"""crdt/schema — schema-version envelopes.

A tree that opts in stores each record as ``{"$schema": [family, version], ...fields}``.
Reading a value stamped with another version than the current one is refused (no
record shape has a second version yet, so there is nothing to upcast). Pure.
"""

from __future__ import annotations

from repoctx.errors import InvalidEncodingError, UnsupportedVersionError

from . import codec
from .record import Record

__all__ = ["SCHEMA", "unwrap", "wrap"]

SCHEMA = "$schema"

_BYTES = {bytes}


def wrap(rec: Record, family: int, version: int) -> bytes:
    """Encode ``rec`` inside the envelope ``[family, version]``."""
    fields = rec.fields
    stamp = (family, version)
    # Fields are in name order, so ``$schema`` usually just goes first: no sort then.
    if not fields or next(iter(fields)) > SCHEMA:
        return codec.pack_fields({SCHEMA: stamp, **fields})
    return codec.pack_fields(dict(sorted({**fields, SCHEMA: stamp}.items())))


def unwrap(data: bytes, family: int, version: int) -> Record:
    """Decode an enveloped record stamped ``[family, version]``."""
    body = codec.unpack_fields(data, stamped=True)  # str keys, bytes or int-pair values
    stamp = body.pop(SCHEMA, None)
    if stamp != (family, version):  # arrays decode as tuples: the current one matches
        raise _refusal(stamp, family, version)
    # Only the stamp may be an int pair. No set built: this runs on every read of the store.
    if not _BYTES.issuperset(map(type, body.values())):
        raise InvalidEncodingError("a record is a map of field names to encoded CRDTs")
    return Record(body)


def _refusal(stamp: object, family: int, version: int) -> Exception:
    """The error for a record whose stamp is not ``[family, version]``."""
    if not (type(stamp) is tuple and len(stamp) == 2 and type(stamp[1]) is int):
        return InvalidEncodingError(f"missing or malformed {SCHEMA} envelope")
    found_family, found_version = stamp
    if found_family != family:
        return InvalidEncodingError(f"schema family {found_family} where {family} was expected")
    if found_version > version:
        return UnsupportedVersionError(
            f"schema family {family} version {found_version}; this build reads up to {version}"
        )
    return UnsupportedVersionError(
        f"schema family {family} version {found_version}; this build reads only version "
        f"{version} and has no upcaster from v{found_version}")
