"""memory/search — keyword hits over memory entries, for ``repocontext_search`` to fuse.

Scores live, unexpired entries of the repository by the query's terms (lower-cased
words) in the title (x3), tags (x2), topic (x1.5) and body (x1, a term counted at
most three times), plus 2 when the whole query appears verbatim in the title or body;
the sum is divided by the number of terms so scores stay comparable across queries.
A hit is ``{score, key, kind: "memory", path: None, snippet, reasons, title, topic}``.
One scan of the memory range; memory trees are small next to the code index.
"""

from __future__ import annotations

import re
from typing import Any

from repoctx.store import Store

from .entries import live_entry
from .memory_record import FAMILY, Entry

_WORD = re.compile(r"\w+", re.UNICODE)
SNIPPET_CHARS = 240
_BODY_CAP = 3


def terms(text: str) -> list[str]:
    """The lower-cased words of ``text``, first occurrence order, no repeats."""
    return list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))


def memory_hits(store: Store, query: str, k: int = 10, now_ms: int | None = None,
                ) -> list[dict[str, Any]]:
    """The ``k`` best memory hits for ``query`` (best first, ties in key order)."""
    words = terms(query)
    if not words or k <= 0:
        return []
    scored = []
    with store.snapshot(now_ms) as snap:
        for key, rec in snap.scan(store.key(FAMILY, "x")[:-1]):
            found = live_entry(key, rec, snap.now_ms)
            if found is None:
                continue
            score, reasons = score_entry(found, words, query)
            if score > 0:
                scored.append((score, key, found, reasons))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [{"score": round(score, 4), "key": key, "kind": "memory", "path": None,
             "snippet": snippet(found, words), "reasons": reasons, "title": found.title,
             "topic": found.topic}
            for score, key, found, reasons in scored[:k]]


def score_entry(found: Entry, words: list[str], query: str) -> tuple[float, list[str]]:
    """``(score, reasons)`` of one entry for the query's ``words``."""
    title = set(terms(found.title or ""))
    tags = {t for tag in found.tags for t in terms(tag)}
    topic = set(terms(found.topic))
    body_words = [w.lower() for w in _WORD.findall(found.body)]
    score, reasons = 0.0, []
    for word in words:
        parts = [(3.0, "title", word in title), (2.0, "tag", word in tags),
                 (1.5, "topic", word in topic)]
        for weight, where, hit in parts:
            if hit:
                score += weight
                reasons.append(f"{where}:{word}")
        count = min(body_words.count(word), _BODY_CAP)
        if count:
            score += count / _BODY_CAP
            reasons.append(f"body:{word}")
    phrase = query.strip().lower()
    if len(words) > 1 and phrase and (phrase in (found.title or "").lower()
                                      or phrase in found.body.lower()):
        score += 2.0
        reasons.append("phrase")
    return score / len(words), reasons


def snippet(found: Entry, words: list[str]) -> str:
    """About ``SNIPPET_CHARS`` of the body around the first term it contains (else the title)."""
    body = found.body
    lowered = body.lower()
    at = min((i for i in (lowered.find(w) for w in words) if i >= 0), default=-1)
    if at < 0:
        return (found.title or body[:SNIPPET_CHARS]).strip()
    start = max(0, at - SNIPPET_CHARS // 3)
    text = body[start:start + SNIPPET_CHARS].strip()
    return ("…" if start else "") + text + ("…" if start + SNIPPET_CHARS < len(body) else "")
