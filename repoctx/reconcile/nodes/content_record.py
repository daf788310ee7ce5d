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

A Python file's record also holds ``links`` (LWW, ``extract.Links.wire``: the modules
the bounded body imports, what its names stand for, whether it re-exports), computed in
the analysing worker from the same bounded body, from the parse its symbols came from.
It is written with the body, at the same tick by the same replica, so the two merge
alike (the later write wins both) and never describe different versions of a file. A
record of another language, or of an older writer, has none (None): a reader computes
the links from the body then (``links``); the file node's ``LINKS`` marker makes the
next pass write them into an older store.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from repoctx.crdt.record import Record
from repoctx.reconcile.nodes.fields import lww_delta, lww_value
from repoctx.trees import BY_FAMILY

if TYPE_CHECKING:
    from repoctx.extract import Links

MAX_CHARS = 65_536
MAX_READ_BYTES = 4 << 20
"""Files larger than this are never read for projection (left unmarked, re-checked)."""
PACK_LEVEL = 1
"""zlib level of a stored body: level 6 is 20% smaller on Django's sources but takes
three times the CPU, in the cold pass's workers."""
LEGACY_BODY, PACKED_BODY, LINKS = "body", "zbody", "links"
CONTENT_TREE = BY_FAMILY["content"].name
"""The tree holding the content records: its generation dates what a reader derives
from them."""


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
                  replica: str, links: tuple | None = None) -> Record | None:
    """Delta storing ``body`` (a text, or already ``pack_body``'d) and its ``links`` (an
    ``extract.Links.wire``, or None) for the file version ``digest``; a plain body left by
    an older writer is cleared."""
    packed = pack_body(body) if isinstance(body, str) else body
    return lww_delta(current, {PACKED_BODY: packed, LEGACY_BODY: None, "digest": digest,
                               LINKS: links}, tick, replica)


def retire_delta(current: Record | None, tick: int, replica: str) -> Record | None:
    """Delta that retires the projection."""
    return lww_delta(current, {PACKED_BODY: None, LEGACY_BODY: None, "digest": None,
                               LINKS: None}, tick, replica)


def links(rec: Record | None) -> Links | None:
    """The stored links of the body (None when the record holds none)."""
    value = lww_value(rec, LINKS)
    if value is None:
        return None
    from repoctx.extract import links_from_wire  # here: a pass that only reads bodies'
    # bounds (``MAX_READ_BYTES``) imports no extractor
    return links_from_wire(value)


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
