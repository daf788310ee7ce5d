"""crdt/schema — schema-version envelopes and the upcasters that read old versions.

A tree that opts in stores each record as ``{"$schema": [family, version], ...fields}``.
Reading a value written at an older version runs the registered upcasters one version
at a time up to the current one; a newer version than this build knows is refused.
Pure (the registry is filled at import time by the modules that own record shapes).
"""

from __future__ import annotations

from collections.abc import Callable

from repoctx.errors import InvalidEncodingError, UnsupportedVersionError

from . import codec
from .record import Record

__all__ = ["SCHEMA", "Upcaster", "register_upcaster", "unwrap", "wrap"]

SCHEMA = "$schema"

Upcaster = Callable[[dict[str, bytes]], dict[str, bytes]]

_UPCASTERS: dict[tuple[int, int], Upcaster] = {}
_STR, _BYTES = {str}, {bytes}


def register_upcaster(family: int, from_version: int, upcaster: Upcaster) -> None:
    """Register the function that lifts ``family`` records from ``from_version`` by one."""
    _UPCASTERS[(family, from_version)] = upcaster


def wrap(rec: Record, family: int, version: int) -> bytes:
    """Encode ``rec`` inside the envelope ``[family, version]``."""
    fields = rec.fields
    stamp = (family, version)
    # Fields are in name order, so ``$schema`` usually just goes first: no sort then.
    if not fields or next(iter(fields)) > SCHEMA:
        return codec.pack_fields({SCHEMA: stamp, **fields})
    return codec.pack_fields(dict(sorted({**fields, SCHEMA: stamp}.items())))


def unwrap(data: bytes, family: int, version: int) -> Record:
    """Decode an enveloped record, upcasting it to ``version``."""
    body = codec.unpack_fields(data, stamped=True)  # str keys, bytes or int-pair values
    stamp = body.pop(SCHEMA, None)
    if stamp != (family, version):  # arrays decode as tuples: the current one matches
        body = _upcast(body, stamp, family, version)
        if not _STR.issuperset(map(type, body)):  # an upcaster returns any map
            raise InvalidEncodingError("a record is a map of field names to encoded CRDTs")
        body = dict(sorted(body.items()))  # records keep name order
    # Only the stamp may be an int pair. No set built: this runs on every read of the store.
    if not _BYTES.issuperset(map(type, body.values())):
        raise InvalidEncodingError("a record is a map of field names to encoded CRDTs")
    return Record(body)


def _upcast(body: dict, stamp: object, family: int, version: int) -> dict:
    """Run the upcasters from the stamped version up to ``version``."""
    if not (type(stamp) is tuple and len(stamp) == 2 and type(stamp[1]) is int):
        raise InvalidEncodingError(f"missing or malformed {SCHEMA} envelope")
    found_family, found_version = stamp
    if found_family != family:
        raise InvalidEncodingError(f"schema family {found_family} where {family} was expected")
    if found_version > version:
        raise UnsupportedVersionError(
            f"schema family {family} version {found_version}; this build reads up to {version}"
        )
    for step in range(found_version, version):
        upcaster = _UPCASTERS.get((family, step))
        if upcaster is None:
            raise UnsupportedVersionError(f"no upcaster for schema family {family} v{step}")
        body = upcaster(body)
    return body
