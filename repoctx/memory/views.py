"""memory/views — the JSON shapes the memory tools answer with.

An entry view is ``{key, exists, kind, topic, id, fields{}, tags[], links{rel: [keys]},
revisions, expiresAtUtc, remainingSeconds, stale, staleLinks[], danglingLinks[]}``.
A bulk read passes no staleness and no time: both are null ("not evaluated").
Times are ISO 8601 UTC with milliseconds and a ``Z``. Pure functions.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from repoctx.crdt import tick_ms

from .memory_record import Entry
from .staleness import NOT_EVALUATED, Staleness

SCAN_BODY_CHARS = 1_000
"""How much of each body a bulk page carries (recall a key for the whole body)."""


def iso(ms: int | None) -> str | None:
    """Epoch milliseconds as ``2025-01-31T12:00:00.000Z`` (None stays None)."""
    if ms is None:
        return None
    stamp = datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def expiry(expires_ms: int | None, now_ms: int) -> dict[str, Any]:
    """``{expiresAtUtc, remainingSeconds}`` (both null for an entry that never expires)."""
    if expires_ms is None:
        return {"expiresAtUtc": None, "remainingSeconds": None}
    remaining = max(0, math.ceil((expires_ms - now_ms) / 1000))
    return {"expiresAtUtc": iso(expires_ms), "remainingSeconds": remaining}


def missing(key: str, topic: str, entry_id: str) -> dict[str, Any]:
    """The view of a key with no entry."""
    return {"key": key, "exists": False, "kind": None, "topic": topic, "id": entry_id,
            "fields": {}, "tags": [], "links": {}, "revisions": 0, "expiresAtUtc": None,
            "remainingSeconds": None, "stale": False, "staleLinks": [], "danglingLinks": []}


def entry_view(entry: Entry, now_ms: int | None, staleness: Staleness | None,
               body_chars: int | None = None) -> dict[str, Any]:
    """The view of an existing entry; ``now_ms``/``staleness`` None for bulk reads."""
    body = entry.body if body_chars is None else entry.body[:body_chars]
    fields = {"title": entry.title, "body": body, "author": entry.author,
              "provenance": entry.provenance, "createdAt": iso(entry.created_ms),
              "updatedAt": iso(tick_ms(entry.tick)) if entry.tick else None}
    view: dict[str, Any] = {
        "key": entry.key, "exists": True, "kind": entry.kind, "topic": entry.topic,
        "id": entry.id, "fields": fields, "tags": sorted(entry.tags),
        "links": {rel: sorted(targets) for rel, targets in entry.links.items()},
        "revisions": entry.revisions,
    }
    if body_chars is not None:
        view["bodyTruncated"] = len(entry.body) > body_chars
    if now_ms is None:
        view |= {"expiresAtUtc": None, "remainingSeconds": None}
    else:
        view |= expiry(entry.expires_ms, now_ms)
    view |= NOT_EVALUATED if staleness is None else staleness.as_json()
    return view
