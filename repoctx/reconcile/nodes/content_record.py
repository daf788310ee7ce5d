"""reconcile/nodes/content_record — the content projection at ``repo/{id}/content/{path}``.

The file's body bounded to ``MAX_CHARS`` characters in an LWW register, with the
digest of the file version it came from. A rebuildable projection: retired (every
field None) when the file is deleted.

The body is kept zlib-compressed (field ``zbody``: the UTF-8 of the bounded body,
level 1, compressed in the analysing worker): its readers (``related`` imports, the
vector windows, a sync replica that has no working tree) need the text, but a plain
copy is a third of Django's LMDB (39 MB of 115; compressed, 11 MB). Records
of an older writer hold the plain text in ``body``, which is still read, and which a new
write of the record clears. A replica of an older repoctx reading a new record finds no
``body`` and reads the file as empty (no imports, no windows) rather than failing.
"""

from __future__ import annotations

import zlib

from repoctx.crdt.record import Record
from repoctx.reconcile.nodes.fields import lww_delta, lww_value

MAX_CHARS = 65_536
MAX_READ_BYTES = 4 << 20
"""Files larger than this are never read for projection (left unmarked, re-checked)."""
PACK_LEVEL = 1
"""zlib level of a stored body: level 6 is 20% smaller on Django's sources but takes
three times the CPU, in the cold pass's workers."""
LEGACY_BODY, PACKED_BODY = "body", "zbody"


def bounded_body(text: str) -> str:
    """The stored part of a body."""
    return text[:MAX_CHARS]


def pack_body(text: str) -> bytes:
    """The stored form of a file's text: its bounded part, UTF-8, zlib-compressed."""
    return zlib.compress(bounded_body(text).encode("utf-8", "surrogatepass"), PACK_LEVEL)


def unpack_body(packed: bytes) -> str:
    """The text of a stored body (``pack_body`` reversed)."""
    return zlib.decompress(packed).decode("utf-8", "surrogatepass")


def content_delta(current: Record | None, body: str | bytes, digest: str, tick: int,
                  replica: str) -> Record | None:
    """Delta storing ``body`` (a text, or already ``pack_body``'d) for the file version
    ``digest``; a plain body left by an older writer is cleared."""
    packed = pack_body(body) if isinstance(body, str) else body
    return lww_delta(current, {PACKED_BODY: packed, LEGACY_BODY: None, "digest": digest},
                     tick, replica)


def retire_delta(current: Record | None, tick: int, replica: str) -> Record | None:
    """Delta that retires the projection."""
    return lww_delta(current, {PACKED_BODY: None, LEGACY_BODY: None, "digest": None},
                     tick, replica)


def body(rec: Record | None) -> str | None:
    """The stored body (None when there is none); a body that does not unpack reads as
    None, like a missing one: the projection is rebuilt by the next full pass."""
    packed = lww_value(rec, PACKED_BODY)
    if isinstance(packed, bytes):
        try:
            return unpack_body(packed)
        except (zlib.error, UnicodeDecodeError):
            return None
    legacy = lww_value(rec, LEGACY_BODY)
    return legacy if isinstance(legacy, str) else None
