"""memory/entries — remember, recall, update and forget one memory entry.

Every argument is checked before anything is written, and every write is one
read-merge-write batch, so bad input is a ``ToolError`` with nothing written. Link
digests are captured in the same transaction that adds the link. Times come from
the wall clock unless ``now_ms`` is given (tests pin it).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from repoctx.crdt import record, wall_ms
from repoctx.crdt.record import Record
from repoctx.errors import StoreReplacedError, ToolError
from repoctx.reconcile import writers_lock
from repoctx.store import Store
from repoctx.trees import Batch, visible

from . import links as link_rules
from . import views
from .body import check_body
from .memory_record import (
    AUTHOR,
    BODY,
    CREATED_AT,
    DEFAULT_KIND,
    KIND,
    KINDS,
    PROVENANCE,
    TITLE,
    UPDATABLE,
    Change,
    Entry,
    change_delta,
    check_tag,
    entry,
    expiry_delta,
    forget_delta,
    memory_key,
    parse_memory_key,
)
from .staleness import evaluate

MAX_TTL_SECONDS = 10 * 365 * 24 * 3600
MAX_TEXT_FIELD = 4096


def remember(store: Store, topic: str, entry_id: str | None = None, *, kind: str | None = None,
             title: str | None = None, body: str | None = None, author: str | None = None,
             provenance: str | None = None, tags: Iterable[str] = (),
             add_links: Mapping[str, list[str]] | None = None, ttl_seconds: int | None = None,
             now_ms: int | None = None) -> dict[str, Any]:
    """Create (or add to) the entry ``topic/id``; ``{key, created, expiresAtUtc, ...}``."""
    now = wall_ms() if now_ms is None else now_ms
    if kind is not None and kind not in KINDS:
        raise ToolError(f"kind: must be one of {', '.join(KINDS)} (got {kind!r})")
    tick = store.tick()
    key = memory_key(store.repo_id, topic, entry_id or _new_id(tick))
    registers = _registers({TITLE: title, AUTHOR: author, PROVENANCE: provenance})
    pairs = link_rules.parse_links(store.repo_id, add_links, get=store.get)
    expires = None if ttl_seconds is None else now + check_ttl(ttl_seconds, "ttlSeconds") * 1000
    text = None if body is None else check_body(body)
    tag_set = _tags(tags, "tags")
    with writing(store) as b:
        current = b.get(key)
        existing = _live(key, current, now)
        lapsed = None if current is None else record.expires_ms(current)
        if existing is None and lapsed is not None and lapsed <= now:
            raise ToolError(f"{key} expired and awaits compaction; remember it under another id")
        if existing is not None and kind is not None and kind != existing.kind:
            raise ToolError(f"kind: set on create; {key} is a {existing.kind}")
        if existing is None:
            registers = {**registers, KIND: kind or DEFAULT_KIND, CREATED_AT: now}
        digests = link_rules.capture(_getter(b, now), pairs)
        change = Change("remember", registers, text, tag_set, add_links=pairs, digests=digests,
                        expires_ms=expires)
        b.update(key, lambda cur: change_delta(cur, change, tick, store.replica_id))
        after = b.get(key)
    return {"key": key, "created": existing is None,
            "expiresAtUtc": views.iso(record.expires_ms(after)) if after else None,
            "linksAdded": len(pairs), "notIndexed": _not_indexed(pairs, digests)}


def recall(store: Store, key: str, now_ms: int | None = None) -> dict[str, Any]:
    """The entry view of ``key`` with its links evaluated for staleness."""
    topic, entry_id = parse_memory_key(store.repo_id, key)
    with store.snapshot(now_ms) as snap:
        found = _live(key, snap.get(key), snap.now_ms)
        if found is None:
            return views.missing(key, topic, entry_id)
        return views.entry_view(found, snap.now_ms, evaluate(found, snap.get))


def update(store: Store, key: str, fields: Mapping[str, Any] | None = None, *,
           add_tags: Iterable[str] = (), remove_tags: Iterable[str] = (),
           add_links: Mapping[str, list[str]] | None = None,
           remove_links: Mapping[str, list[str]] | None = None,
           now_ms: int | None = None) -> dict[str, Any]:
    """Write fields (each an LWW write at a fresh tick), tags and links of an existing entry."""
    now = wall_ms() if now_ms is None else now_ms
    parse_memory_key(store.repo_id, key)
    registers, body = _fields(fields or {})
    adding = link_rules.parse_links(store.repo_id, add_links, get=store.get)
    removing = link_rules.parse_links(store.repo_id, remove_links, "removeLinks",
                                      store.get) - adding
    tags_in = _tags(add_tags, "addTags")
    tags_out = _tags(remove_tags, "removeTags") - tags_in
    tick = store.tick()
    with writing(store) as b:
        before = _live(key, b.get(key), now)
        if before is None:
            raise ToolError(f"no memory entry at {key}; remember it first")
        digests = link_rules.capture(_getter(b, now), adding)
        change = Change("update", registers, body, tags_in, tags_out, adding, removing, digests)
        b.update(key, lambda cur: change_delta(cur, change, tick, store.replica_id))
        after = _live(key, b.get(key), now) or before  # an update never hides an entry
    return {"key": key,
            "updated": sorted(n for n in (*registers, BODY) if _differs(before, after, n)),
            "tagsAdded": sorted(after.tags - before.tags),
            "tagsRemoved": sorted(before.tags - after.tags),
            "linksAdded": len(adding), "linksRemoved": len(_pairs(before) - _pairs(after)),
            "notIndexed": _not_indexed(adding, digests)} | views.expiry(after.expires_ms, now)


def forget(store: Store, key: str, *, lapse: bool = False, lapse_seconds: int = 60,
           now_ms: int | None = None) -> dict[str, Any]:
    """Delete the entry (a tombstone), or with ``lapse`` let it expire in ``lapse_seconds``.

    A lapse only ever moves the expiry later: it cannot shorten a later one.
    """
    now = wall_ms() if now_ms is None else now_ms
    parse_memory_key(store.repo_id, key)
    seconds = check_ttl(lapse_seconds, "lapseSeconds")
    tick = store.tick()
    with writing(store) as b:
        found = _live(key, b.get(key), now)
        if found is None:
            return {"key": key, "existed": False, "forgotten": False, "lapsed": False,
                    "expiresAtUtc": None}
        if lapse:
            b.update(key, lambda cur: expiry_delta(cur, now + seconds * 1000, tick))
        else:
            b.update(key, lambda cur: forget_delta(cur, tick, store.replica_id))
        after = b.get(key)
    expires = record.expires_ms(after) if after is not None and lapse else None
    return {"key": key, "existed": True, "forgotten": not lapse, "lapsed": lapse,
            "expiresAtUtc": views.iso(expires)}


@contextmanager
def writing(store: Store) -> Iterator[Batch]:
    """A write batch that a running ``repoctx repair`` holds off (bounded: then a
    ``StoreBusyError`` naming the store), refused when a repair has replaced the store
    since this handle opened it, as the write would reach the discarded copy."""
    if store.trees.readonly:  # the batch refuses, naming why
        with store.batch() as b:
            yield b
        return
    with writers_lock(store.path):
        if store.replaced():
            raise StoreReplacedError(
                f"the store at {store.path} was rebuilt by `repoctx repair` after this "
                "process opened it; nothing was written: open it again (restart the "
                "server) and retry")
        with store.batch() as b:
            yield b


def check_ttl(seconds: Any, label: str) -> int:
    """A positive whole number of seconds (at most ten years)."""
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds <= 0:
        raise ToolError(f"{label}: must be a positive integer number of seconds (got {seconds!r})")
    if seconds > MAX_TTL_SECONDS:
        raise ToolError(f"{label}: at most {MAX_TTL_SECONDS} seconds (ten years)")
    return seconds


def live_entry(key: str, rec: Record | None, now_ms: int) -> Entry | None:
    """The entry a reader sees at ``key``: None when absent, hidden, expired or forgotten."""
    return _live(key, rec, now_ms)


def _live(key: str, rec: Record | None, now_ms: int) -> Entry | None:
    if rec is None or not visible(rec, now_ms):
        return None
    found = entry(key, rec)
    return found if found.exists else None


def _getter(b: Batch, now_ms: int) -> link_rules.Getter:
    def get(key: str) -> Record | None:
        rec = b.get(key)
        return rec if rec is not None and visible(rec, now_ms) else None
    return get


def _tags(values: Iterable[str], label: str) -> frozenset[str]:
    if isinstance(values, str):
        raise ToolError(f"{label}: must be a list of tags, not one string")
    return frozenset(check_tag(t) for t in values)


def _registers(values: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for name, value in values.items():
        if value is None:
            continue
        if not isinstance(value, str) or len(value) > MAX_TEXT_FIELD:
            raise ToolError(f"{name}: must be a string of at most {MAX_TEXT_FIELD} characters")
        out[name] = value
    return out


def _fields(fields: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """``repocontext_update``'s ``fields``: registers to write and the new body, checked."""
    if not isinstance(fields, Mapping):
        raise ToolError("fields: must be an object of field name -> new value")
    for name in fields:
        if name in (KIND, CREATED_AT):
            raise ToolError(f"fields: {name} is set on create and cannot be updated")
        if name not in UPDATABLE:
            raise ToolError(f"fields: unknown field {name!r} (fields: {', '.join(UPDATABLE)})")
    body = fields.get(BODY, None)
    if BODY in fields and body is None:
        body = ""
    if body is not None and not isinstance(body, str):
        raise ToolError("fields: body must be a string")
    registers = {n: v for n, v in fields.items() if n != BODY}
    for name, value in registers.items():
        if value is not None and (not isinstance(value, str) or len(value) > MAX_TEXT_FIELD):
            raise ToolError(f"fields: {name} must be null or a string of at most "
                            f"{MAX_TEXT_FIELD} characters")
    return registers, None if body is None else check_body(body)


def _differs(before: Entry, after: Entry, name: str) -> bool:
    attr = {TITLE: "title", BODY: "body", AUTHOR: "author", PROVENANCE: "provenance"}[name]
    return getattr(before, attr) != getattr(after, attr)


def _pairs(found: Entry) -> set[tuple[str, str]]:
    return {(rel, t) for rel, targets in found.links.items() for t in targets}


def _not_indexed(pairs: frozenset[tuple[str, str]], digests: Mapping[str, str]) -> list[str]:
    """Structural targets of ``pairs`` that had no live record (no digest captured)."""
    return sorted({t for _, t in pairs
                   if link_rules.family(t) in link_rules.STRUCTURAL and t not in digests})


def _new_id(tick: int) -> str:
    """A fresh, time-ordered id: the tick in hex and a random suffix (unique across replicas)."""
    return f"{tick:x}-{secrets.token_hex(3)}"
