"""retrieval/bundle/receipts — the receipt of a delivered unit, and the unit kinds.

A receipt is the SHA-256 hex of ``(repoId, path, contentHash, kind, unit key)`` joined
unambiguously (as a compact JSON array, so no field can bleed into the next). It names
one unit of one version of one file: the same unit of a changed file gets a new
receipt. Pure.
"""

from __future__ import annotations

import hashlib
import json

FILE, SLICE, OUTLINE, PATH = "file", "slice", "outline", "path"
"""Unit kinds: a whole body, a symbol (or line span) body, a file's outline, a bare path."""
KINDS = (FILE, SLICE, OUTLINE, PATH)


def receipt(repo_id: str, path: str, content_hash: str, kind: str, key: str = "") -> str:
    """The receipt of one unit (``key`` names the unit within its kind, e.g. a symbol)."""
    joined = json.dumps([repo_id, path, content_hash, kind, key], ensure_ascii=False,
                        separators=(",", ":"))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()
