"""crdt/text_body — a collaborative text of whole lines (Yjs through pycrdt), stored as its update.

State: one Yjs update (v1 encoding) holding every insert ever made and the delete
set. The text is a Yjs ``Text`` under the root name ``lines`` in which every line,
the last included, ends with ``"\\n"`` (the value drops that final one; ``""`` is no
line at all). An edit replaces whole runs of lines (``replace_lines``): it deletes
whole terminated lines and inserts whole terminated lines, one Yjs item per run, at a
line start, so the text is always a sequence of whole lines, whatever merges. It is
applied to a document loaded from the state, so only the touched lines get new items.
Two replicas replacing the same line each insert their version as one run at the
same place; Yjs (YATA) never interleaves two runs and orders them by client id, so
the merge holds both versions, adjacent, intact and on their own lines, in the same
order everywhere, where character edits would interleave the two versions letter by
letter (``SAME PARA r3 version`` and ``SAME PARA r4 version``
would merge to ``SAME PARA r43 version``). Edits of different lines all survive.

Format version 2. Version 1 states (written before lines) hold a character-level
Yjs ``Text`` under ``body``: they still decode, merge and read (the value is that
text while no line was ever written). The first line edit of such a state moves
its text into lines first, under a client id derived from the state's bytes, so
replicas that migrate the same state write identical items and the merge keeps one
copy. A merged state holding lines encodes as version 2; a text-only one as
version 1, byte for byte as before.

``merge`` is ``pycrdt.merge_updates``, which is canonical: the union of the same
items gives the same bytes whatever the order or grouping of the merges
(property-tested in ``tests/crdt/test_laws.py``), so replicas converge to identical
bytes. Deleted content is kept (no garbage collection, which would depend on the
order edits were seen); the body size bound is the caller's. Pure; no I/O (pycrdt
works in memory). Equality is structural (equal update bytes). Reference:
Nicolaescu et al., "Near Real-Time Peer-to-Peer Shared Editing on Extensible Data
Types" (2016) — YATA, the algorithm behind Yjs/yrs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from repoctx.errors import PreconditionError

from . import codec
from .tags import TEXT_BODY

if TYPE_CHECKING:
    from pycrdt import Doc

__all__ = ["TextBody", "client_id", "decode", "empty", "encode", "lines", "merge",
           "replace_lines", "value"]

LINES = "lines"
"""Root of the line text (every line terminated by ``"\\n"``)."""
LEGACY_TEXT = "body"
"""Root of the version 1 character-level text (read, merged, migrated; never written)."""
VERSION = 2
LEGACY_VERSION = 1
EMPTY_UPDATE = b"\x00\x00"
"""The update of a document nobody wrote to (no structs, empty delete set)."""

LineSplice = tuple[int, int, Sequence[str]]
"""Replace lines ``[start, end)`` of the current text by the given lines."""


@dataclass(frozen=True, slots=True)
class TextBody:
    """The canonical Yjs update of the text."""

    update: bytes = EMPTY_UPDATE


EMPTY = TextBody()


def empty() -> TextBody:
    """The text nobody wrote: reads as ``""``."""
    return EMPTY


def value(state: TextBody) -> str:
    """The text the update spells: its lines joined by ``"\\n"``."""
    return "\n".join(lines(state))


def lines(state: TextBody) -> list[str]:
    """The lines ``replace_lines`` offsets count (``[]`` for ``""``)."""
    if state.update == EMPTY_UPDATE:
        return []
    return _read(_load(state.update, 0))


def client_id(replica: str) -> int:
    """The Yjs client id of a replica: 53 bits of SHA-256 (Yjs ids stay JS-safe).

    A replica reuses its id across edits, which Yjs allows as long as every edit starts
    from a state holding the replica's earlier edits — the store guarantees that by
    editing inside the write transaction that reads the record.
    """
    return _id53(replica.encode())


def replace_lines(state: TextBody, edits: Sequence[LineSplice], replica: str) -> TextBody:
    """Delta applying ``edits`` (non-overlapping, any order) to the lines of ``state``.

    Offsets index ``lines(state)``; each new line is a ``str`` without ``"\\n"``. The
    delta holds the new items and deletions only (plus, for a version 1 state, the
    move of its text into lines). No edits (or only empty ones) is the empty delta.
    """
    ordered = sorted(edits, key=lambda e: (e[0], e[1]), reverse=True)
    if not any(e[1] > e[0] or e[2] for e in ordered):
        _check(ordered, len(lines(state)))
        return EMPTY
    moved = _migrate(state.update)
    doc = _load(_y().merge_updates(state.update, moved) if moved else state.update,
                client_id(replica))
    text = doc.get(LINES, type=_y().Text)
    current = _split(str(text))
    _check(ordered, len(current))
    starts = [0]  # UTF-8 byte offset of each line (Yjs text offsets are bytes)
    for line in current:
        starts.append(starts[-1] + len(line.encode()) + 1)
    before = doc.get_state()
    # Back to front, so each edit's offsets still refer to the unchanged prefix.
    with doc.transaction():
        for start, end, new in ordered:
            if end > start:
                del text[starts[start]:starts[end]]
            if new:
                text.insert(starts[start], "".join(f"{line}\n" for line in new))
    return TextBody(_y().merge_updates(moved, doc.get_update(before)) if moved
                    else _y().merge_updates(doc.get_update(before)))


def _check(ordered: list[LineSplice], length: int) -> None:
    limit = length
    for start, end, new in ordered:
        if not (0 <= start <= end <= limit):
            raise PreconditionError(f"line splice ({start}, {end}) is outside the text or "
                                    "overlaps")
        if isinstance(new, str) or any(not isinstance(x, str) or "\n" in x for x in new):
            raise PreconditionError("a line splice inserts a sequence of lines without '\\n'")
        limit = start


def merge(a: TextBody, b: TextBody) -> TextBody:
    """The union of both texts' items and deletions (``pycrdt.merge_updates``)."""
    if a.update == b.update or b.update == EMPTY_UPDATE:
        return a
    if a.update == EMPTY_UPDATE:
        return b
    return TextBody(_y().merge_updates(a.update, b.update))


def encode(state: TextBody) -> bytes:
    """Binary form: tag, version (2 with lines, 1 for a text-only state), ``bin`` update."""
    legacy = state.update == EMPTY_UPDATE or LINES not in _load(state.update, 0)
    return codec.frame(TEXT_BODY, state.update, LEGACY_VERSION if legacy else VERSION)


def decode(data: bytes) -> TextBody:
    """Inverse of ``encode`` (either version); the update must parse as a Yjs update."""
    body = codec.unframe(TEXT_BODY, data, (LEGACY_VERSION, VERSION))
    if type(body) is not bytes:
        raise codec.shape_error("TextBody", "the body is the update's bytes")
    if body == EMPTY_UPDATE:
        return EMPTY
    try:
        _y().merge_updates(body)  # parses the whole update; pycrdt raises ValueError otherwise
    except ValueError as exc:
        raise codec.shape_error("TextBody", f"not a Yjs update: {exc}") from exc
    return TextBody(body)


def _read(doc: Doc) -> list[str]:
    found = _split(str(doc.get(LINES, type=_y().Text)))
    if found or LEGACY_TEXT not in doc:
        return found
    text = str(doc.get(LEGACY_TEXT, type=_y().Text))
    return text.split("\n") if text else []


def _split(terminated: str) -> list[str]:
    """The lines of a text in which every line ends with ``"\\n"`` (an unterminated tail,
    which edits never leave, would still read as a line rather than vanish)."""
    parts = terminated.split("\n")
    return parts[:-1] if parts[-1] == "" else parts


def _migrate(update: bytes) -> bytes:
    """The update moving a version 1 text into lines (``b""`` when there is nothing to move).

    Written under a client id derived from ``update``: replicas holding the same state
    write the same items, which the merge then keeps once.
    """
    if update == EMPTY_UPDATE:
        return b""
    doc = _load(update, _id53(b"repoctx text_body lines\0" + update))
    if len(str(doc.get(LINES, type=_y().Text))) or LEGACY_TEXT not in doc:
        return b""
    text = doc.get(LEGACY_TEXT, type=_y().Text)
    old = str(text)
    if not old:
        return b""
    before = doc.get_state()
    with doc.transaction():
        del text[0:len(old.encode())]  # Yjs text offsets are UTF-8 bytes
        doc.get(LINES, type=_y().Text).insert(0, old + "\n")
    return _y().merge_updates(doc.get_update(before))


def _id53(data: bytes) -> int:
    import hashlib  # here: its OpenSSL load (~2 ms) is no cost of a no-op ``repoctx index``

    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big") & ((1 << 53) - 1)


def _load(update: bytes, client: int) -> Doc:
    # skip_gc: deleted content stays in the document, so an edit never re-encodes a
    # garbage-collected item whose bytes would then differ from another replica's.
    doc: Doc = _y().Doc(client_id=client or None, skip_gc=True)
    doc.apply_update(update)
    return doc


def _y() -> ModuleType:
    """pycrdt, imported on first use: a command that reads no text body (a no-op
    ``repoctx index``) never loads it (~25 ms)."""
    import pycrdt

    return pycrdt
