"""memory/scan — bulk pages over files, packages, symbols or memory, and the topic list.

A page is a bounded walk of one key range in key order; the continuation token is
opaque (URL-safe base64 of the scope, the range and the last key returned) and only
valid for the same scope and range. Bulk reads never evaluate staleness or expiry:
``stale``, ``staleLinks``, ``danglingLinks``, ``expiresAtUtc`` and ``remainingSeconds``
are null on every entry ("not evaluated"; recall a key for the authoritative answer).
Memory pages carry the first ``views.SCAN_BODY_CHARS`` characters of each body.

Resuming skips the keys before the token inside the range walk, so a late page of a
huge range costs a walk over the earlier keys (the trees layer has no start-key scan).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator
from typing import Any

from repoctx.crdt.record import Record
from repoctx.errors import ToolError
from repoctx.reconcile.nodes import file_node, package_node, symbol_record
from repoctx.store import Store
from repoctx.trees import key_name

from . import views
from .memory_record import FAMILY, check_name, entry
from .staleness import NOT_EVALUATED

SCOPES = ("files", "packages", "symbols", "memory", "topic")
_FAMILY = {"files": "file", "packages": "pkg", "symbols": "symbol", "memory": FAMILY,
           "topic": FAMILY}
_NULLS = {**NOT_EVALUATED, "expiresAtUtc": None, "remainingSeconds": None}


def scan(store: Store, scope: str, *, topic: str | None = None, path_prefix: str | None = None,
         page_size: int = 100, continuation_token: str | None = None,
         now_ms: int | None = None) -> dict[str, Any]:
    """One page: ``{scope, entries[], continuationToken}`` (token null on the last page).

    ``pathPrefix`` narrows the range: a path for files and packages, a fully-qualified
    name for symbols, ``topic/id`` for memory and an id for a topic.
    """
    prefix = _prefix(store, scope, topic, path_prefix or "")
    after = _token_key(continuation_token, scope, prefix)
    entries: list[dict[str, Any]] = []
    last, more = None, False
    with store.snapshot(now_ms) as snap:
        for key, rec in _rows(snap.scan(prefix), after):
            item = _item(scope, key, rec)
            if item is None:
                continue
            if len(entries) == page_size:
                more = True
                break
            entries.append(item | _NULLS)
            last = key
    token = _token(scope, prefix, last) if more and last is not None else None
    return {"scope": scope, "entries": entries, "continuationToken": token}


def list_topics(store: Store, now_ms: int | None = None) -> dict[str, Any]:
    """``{topics: [{topic, count}], total}`` over the repository's live memory entries."""
    counts: dict[str, int] = {}
    with store.snapshot(now_ms) as snap:
        for key, rec in snap.scan(store.key(FAMILY, "x")[:-1]):
            found = entry(key, rec)
            if found.exists:
                counts[found.topic] = counts.get(found.topic, 0) + 1
    topics = [{"topic": t, "count": n} for t, n in sorted(counts.items())]
    return {"topics": topics, "total": sum(counts.values())}


def _prefix(store: Store, scope: str, topic: str | None, path_prefix: str) -> str:
    if scope not in SCOPES:
        raise ToolError(f"scope: must be one of {', '.join(SCOPES)} (got {scope!r})")
    if any(ord(c) < 32 or ord(c) == 127 for c in path_prefix):
        raise ToolError("pathPrefix: may not contain control characters")
    base = store.key(_FAMILY[scope], "x")[:-1]
    if scope == "topic":
        if topic is None:
            raise ToolError("topic: required when scope is topic")
        return f"{base}{check_name('topic', topic)}/{path_prefix}"
    if topic is not None:
        raise ToolError("topic: only used with scope topic")
    return base + path_prefix


def _rows(rows: Iterator[tuple[str, Record]], after: str | None,
          ) -> Iterator[tuple[str, Record]]:
    for key, rec in rows:
        if after is None or key > after:
            yield key, rec


def _item(scope: str, key: str, rec: Record) -> dict[str, Any] | None:
    rest = key_name(key)
    if scope == "files":
        node = file_node.file_node(rest, rec)
        return {"key": key, "path": rest, "digest": node.digest, "size": node.size,
                "language": node.language, "tokens": node.tokens}
    if scope == "packages":
        kids = package_node.children(rec)
        return {"key": key, "path": rest, "children": sorted(kids),
                "isPackage": package_node.is_package(rec)}
    if scope == "symbols":
        decls = symbol_record.declarations(rec)
        first = symbol_record.primary(decls)
        if first is None:
            return None
        return {"key": key, "fqName": rest, "kind": first[1].kind,
                "signature": first[1].signature, "paths": sorted(decls)}
    found = entry(key, rec)
    if not found.exists:
        return None
    view = views.entry_view(found, None, None, body_chars=views.SCAN_BODY_CHARS)
    return {k: v for k, v in view.items() if k not in _NULLS}


def _token(scope: str, prefix: str, last: str) -> str:
    raw = json.dumps([scope, prefix, last], ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _token_key(token: str | None, scope: str, prefix: str) -> str | None:
    if token is None:
        return None
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        got_scope, got_prefix, last = json.loads(raw)
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError):
        raise ToolError("continuationToken: not a token this scan returned") from None
    if (got_scope, got_prefix) != (scope, prefix) or not isinstance(last, str):
        raise ToolError("continuationToken: belongs to another scope or range")
    return last
