"""trees/codec — stored bytes <-> records for a given tree (schema envelope included).

Every record read is checked whole: its map and every field's CRDT encoding decode
(``record.validate``), so stored damage surfaces here as a ``CorruptRecordError``
naming the tree and key, and never later as a bare decoding error from deep inside a
merge or a tool. The check costs about 4 µs a record (more like
14 µs for a file node: 75 ms for Django's 5,534), and a process that reads the same
records twice (a one-file ``repoctx index`` scans every file node in its pass and again
in its export) checks each stored value once: the bytes a check passed are remembered
(their hash, per tree, at most ``CHECKED_MAX`` of them) and the same bytes again are only
decoded. Damaged bytes never pass, so they raise every time they are read.
A scan may defer the check (``decode(..., checked=False)``, then ``check`` on the records
a reader looks into): the file node scan of a one-file pass does, checking the changed
files' nodes alone (``reconcile.nodes.file_node.LiveNodes``).

Stored bytes may be compressed (store format 2): a tree whose ``TreeSpec``
says ``compress`` stores a record's encoding of ``COMPRESS_MIN`` bytes or more as
``COMPRESSED`` (0xC1, the one byte msgpack never uses, so no plain record starts with it)
followed by its zlib stream, when that is shorter; the stream starts from a preset
dictionary (``zdict``) whose Adler-32 its header names, so a reader finds the dictionary
in the stream. ``plain`` turns stored bytes back into
the record's encoding, which is what everything outside this layer sees as a record's
bytes: the replication digests hash it and sync ships it, so replicas that stored the
same record differently (compressed or not, at another level) still agree. A plain
record (format 1, or a small one) is read as it always was.
"""

from __future__ import annotations

import zlib
from typing import Any

import msgpack

from repoctx.crdt import record, schema
from repoctx.crdt.record import Record
from repoctx.errors import CorruptRecordError, CrdtError

from . import zdict
from .spec import LOCAL_TREE, TreeSpec
from .visibility import visible

# Well-formed msgpack of the wrong shape can reach a type's decoder, which then fails
# on the shape rather than on the bytes: that is damage too.
_SHAPE_ERRORS = (CrdtError, TypeError, ValueError, KeyError, IndexError, AttributeError,
                 zlib.error)


def _damaged(spec: TreeSpec, key: str, exc: Exception) -> CorruptRecordError:
    """The error for ``exc`` (one of ``_SHAPE_ERRORS``) decoding ``key`` in ``spec``'s tree."""
    return CorruptRecordError(spec.name, key, str(exc) or type(exc).__name__)


COMPRESSED = 0xC1
"""First byte of a compressed stored record (msgpack's never-used byte)."""
_COMPRESSED = b"\xc1"
COMPRESS_MIN = 64
"""Encodings shorter than this are stored plain: zlib's 6-byte frame eats the gain."""
COMPRESS_LEVEL = 6
"""zlib level: on Django's records, level 1 leaves 8% more bytes for about the same CPU
(the cost is per call, not per byte, at these sizes)."""


_FDICT = 0x20
"""The bit of a zlib stream's second header byte saying a preset dictionary follows."""
_primed: dict[int, Any] = {}
"""Window bits -> a compressor already primed with ``zdict.CURRENT``, copied per record
(priming one costs as much as compressing a record)."""


def _deflater(wbits: int) -> Any:
    primed = _primed.get(wbits)
    if primed is None:
        primed = _primed[wbits] = zlib.compressobj(
            COMPRESS_LEVEL, zlib.DEFLATED, wbits, 6, zlib.Z_DEFAULT_STRATEGY, zdict.CURRENT)
    return primed.copy()


def pack(spec: TreeSpec, plain_bytes: bytes) -> bytes:
    """The bytes stored for a record encoding in ``spec``'s tree (compressed where it pays)."""
    if not spec.compress or len(plain_bytes) < COMPRESS_MIN:
        return plain_bytes
    # A window just large enough for the dictionary and the record (zlib's header says
    # which, so any reader inflates it) and a smaller hash: setting up zlib's default
    # window and tables per record cost five times the compression (structural tree).
    deflate = _deflater(min(15, max(14, (len(plain_bytes) + len(zdict.CURRENT)).bit_length())))
    packed = deflate.compress(plain_bytes) + deflate.flush()
    if len(packed) + 1 >= len(plain_bytes):
        return plain_bytes
    return _COMPRESSED + packed


def plain(raw: bytes) -> bytes:
    """A record's encoding from its stored bytes (``pack`` undone); raises ``zlib.error``
    on a damaged compressed stream (its checksum fails, it is cut short, or it names a
    dictionary this build does not have)."""
    if raw[:1] != _COMPRESSED:
        return raw
    stream = memoryview(raw)[1:]
    if len(raw) < 7 or not raw[2] & _FDICT:
        return zlib.decompress(stream)
    dictionary = zdict.DICTIONARIES.get(int.from_bytes(raw[3:7], "big"))
    if dictionary is None:
        raise zlib.error(f"compressed with an unknown dictionary {bytes(raw[3:7]).hex()}")
    inflate = zlib.decompressobj(zdict=dictionary)
    out = inflate.decompress(stream)
    if not inflate.eof or inflate.unused_data:
        raise zlib.error("the compressed stream is cut short or followed by other bytes")
    return out


CHECKED_MAX = 1 << 18
"""Hashes of checked values kept per process (~15 MB at most); past it they start over."""
_checked: set[int] = set()


def decode(spec: TreeSpec, key: str, raw: bytes, *, checked: bool = True) -> Record:
    """The record stored under ``key`` in ``spec``'s tree, every field checked (once per
    process for the same stored bytes). ``checked=False`` checks only the record's shape:
    a damaged field then raises when a reader decodes it (for scans of which a reader
    decodes a few records' fields: checking all is most of a one-file index)."""
    try:
        body = plain(raw)
        if spec.envelope is not None:
            rec = schema.unwrap(body, *spec.envelope)
        else:
            rec = record.decode(body)
        if not checked:
            return rec
        seen = hash((spec.name, bytes(raw)))
        if seen not in _checked:
            record.validate(rec)
            if len(_checked) >= CHECKED_MAX:
                _checked.clear()
            _checked.add(seen)
        return rec
    except _SHAPE_ERRORS as exc:
        raise _damaged(spec, key, exc) from exc


def check(spec: TreeSpec, key: str, rec: Record) -> Record:
    """``rec`` (read with ``checked=False``) once every field is checked; raises
    ``CorruptRecordError`` naming the tree and key."""
    try:
        record.validate(rec)
    except _SHAPE_ERRORS as exc:
        raise _damaged(spec, key, exc) from exc
    return rec


def visible_at(spec: TreeSpec, key: str, rec: Record, now_ms: int) -> bool:
    """``visible(rec, now_ms)`` of a record maybe not checked yet: the fields it reads
    failing to decode raise ``CorruptRecordError``."""
    try:
        return visible(rec, now_ms)
    except _SHAPE_ERRORS as exc:
        raise _damaged(spec, key, exc) from exc


def full_key_of(spec: TreeSpec, key: str, rec: Record) -> str:
    """The full key a record holds (``key`` when it holds none); its ``$key`` field
    failing to decode raises ``CorruptRecordError``."""
    try:
        return record.full_key(rec) or key
    except _SHAPE_ERRORS as exc:
        raise _damaged(spec, key, exc) from exc


def encode(spec: TreeSpec, rec: Record) -> bytes:
    """The bytes stored for ``rec`` in ``spec``'s tree (``pack`` of ``encode_plain``)."""
    return pack(spec, encode_plain(spec, rec))


def encode_plain(spec: TreeSpec, rec: Record) -> bytes:
    """The canonical encoding of ``rec`` in ``spec``'s tree, uncompressed: what digests hash."""
    if spec.envelope is not None:
        return schema.wrap(rec, *spec.envelope)
    return record.encode(rec)


def decode_local(name: str, raw: bytes) -> Any:
    """A store-local value (plain msgpack); damage raises ``CorruptRecordError``."""
    try:
        return msgpack.unpackb(raw)
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError,
            msgpack.StackError) as exc:
        raise CorruptRecordError(LOCAL_TREE, name, f"not msgpack: {exc}") from exc
