"""crdt/text_body — a collaborative text (a Yjs ``Text`` through pycrdt) stored as its update.

State: one Yjs update (v1 encoding) holding every insert ever made and the delete
set; the text lives under the root name ``body``. An edit is a list of splices
``(start, end, text)`` in code-point offsets of the current text; it is applied to a
document loaded from the state, so only the touched region gets new items and two
replicas editing different parts of one text both keep their edits (Yjs ordering
decides where concurrent inserts at one place land). ``merge`` is
``pycrdt.merge_updates``, which is canonical: the union of the same items gives the
same bytes whatever the order or grouping of the merges (property-tested in
``tests/crdt/test_laws.py``), so replicas converge to identical bytes. Deleted
content is kept (no garbage collection, which would depend on the order edits were
seen); the body size bound is the caller's. Pure; no I/O (pycrdt works in memory).
Equality is structural (equal update bytes). Reference: Nicolaescu et al., "Near
Real-Time Peer-to-Peer Shared Editing on Extensible Data Types" (2016) — YATA, the
algorithm behind Yjs/yrs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from pycrdt import Doc, Text, merge_updates

from repoctx.errors import PreconditionError

from . import codec
from .tags import TEXT_BODY

__all__ = ["TextBody", "client_id", "decode", "empty", "encode", "merge", "splice", "value"]

ROOT = "body"
EMPTY_UPDATE = b"\x00\x00"
"""The update of a document nobody wrote to (no structs, empty delete set)."""

Splice = tuple[int, int, str]
"""Replace code points ``[start, end)`` of the current text by ``text``."""


@dataclass(frozen=True, slots=True)
class TextBody:
    """The canonical Yjs update of the text."""

    update: bytes = EMPTY_UPDATE


EMPTY = TextBody()


def empty() -> TextBody:
    """The text nobody wrote: reads as ``""``."""
    return EMPTY


def value(state: TextBody) -> str:
    """The text the update spells."""
    if state.update == EMPTY_UPDATE:
        return ""
    return str(_load(state.update, 0).get(ROOT, type=Text))


def client_id(replica: str) -> int:
    """The Yjs client id of a replica: 53 bits of SHA-256 (Yjs ids stay JS-safe).

    A replica reuses its id across edits, which Yjs allows as long as every edit starts
    from a state holding the replica's earlier edits — the store guarantees that by
    editing inside the write transaction that reads the record.
    """
    return int.from_bytes(hashlib.sha256(replica.encode()).digest()[:8], "big") & ((1 << 53) - 1)


def splice(state: TextBody, edits: Sequence[Splice], replica: str) -> TextBody:
    """Delta applying ``edits`` (non-overlapping, any order) to the text of ``state``.

    Offsets are code points of ``value(state)``; the delta holds only the new items and
    the deletions. No edits (or only empty ones) is the empty delta.
    """
    doc = _load(state.update, client_id(replica))
    text = doc.get(ROOT, type=Text)
    current = str(text)
    ordered = sorted(edits, key=lambda e: (e[0], e[1]), reverse=True)
    _check(ordered, len(current))
    before = doc.get_state()
    # Back to front, so each splice's offsets still refer to the unchanged prefix; the
    # Yjs offsets are UTF-8 bytes, converted from code points on that prefix.
    with doc.transaction():
        for start, end, new in ordered:
            at = len(current[:start].encode())
            if end > start:
                del text[at:at + len(current[start:end].encode())]
            if new:
                text.insert(at, new)
    if doc.get_state() == before and not any(e[1] > e[0] for e in ordered):
        return EMPTY
    return TextBody(merge_updates(doc.get_update(before)))


def _check(ordered: list[Splice], length: int) -> None:
    limit = length
    for start, end, new in ordered:
        if not (0 <= start <= end <= limit) or not isinstance(new, str):
            raise PreconditionError(f"splice ({start}, {end}) is outside the text or overlaps")
        limit = start


def merge(a: TextBody, b: TextBody) -> TextBody:
    """The union of both texts' items and deletions (``pycrdt.merge_updates``)."""
    if a.update == b.update or b.update == EMPTY_UPDATE:
        return a
    if a.update == EMPTY_UPDATE:
        return b
    return TextBody(merge_updates(a.update, b.update))


def encode(state: TextBody) -> bytes:
    """Binary form: tag, version, msgpack ``bin`` of the update."""
    return codec.frame(TEXT_BODY, state.update)


def decode(data: bytes) -> TextBody:
    """Inverse of ``encode``; the update must parse as a Yjs update."""
    body = codec.unframe(TEXT_BODY, data)
    if type(body) is not bytes:
        raise codec.shape_error("TextBody", "the body is the update's bytes")
    if body == EMPTY_UPDATE:
        return EMPTY
    try:
        merge_updates(body)  # parses the whole update; pycrdt raises ValueError otherwise
    except ValueError as exc:
        raise codec.shape_error("TextBody", f"not a Yjs update: {exc}") from exc
    return TextBody(body)


def _load(update: bytes, client: int) -> Doc:
    # skip_gc: deleted content stays in the document, so an edit never re-encodes a
    # garbage-collected item whose bytes would then differ from another replica's.
    doc: Doc = Doc(client_id=client or None, skip_gc=True)
    doc.apply_update(update)
    return doc
