"""tools/outputs — the JSON Schema of every tool's answer (MCP ``outputSchema``).

One schema per tool, ours and ContextPull's, describing the structured content a
successful call returns: the keys every answer carries are required, each with its
type (``null`` where the answer can leave it empty); keys an answer only sometimes
carries are listed as properties without being required. Objects stay open to new
keys, so adding a field to an answer is not a breaking change; removing or retyping
one is, and the MCP test that validates every tool's answer fails. Errors carry no
structured content (``isError``), so no schema describes them. Pure data; no imports.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

STRING: Schema = {"type": "string"}
INTEGER: Schema = {"type": "integer"}
NUMBER: Schema = {"type": "number"}
BOOLEAN: Schema = {"type": "boolean"}
OPEN_OBJECT: Schema = {"type": "object"}


def obj(properties: dict[str, Schema], optional: tuple[str, ...] = ()) -> Schema:
    """An object requiring each of ``properties`` except ``optional``; more keys allowed."""
    return {"type": "object", "properties": properties,
            "required": [k for k in properties if k not in optional]}


def array(items: Schema) -> Schema:
    """A list of ``items``."""
    return {"type": "array", "items": items}


def nullable(schema: Schema) -> Schema:
    """``schema`` or ``null``."""
    return {"anyOf": [schema, {"type": "null"}]}


STRINGS = array(STRING)
LINE_SPAN = {**array(INTEGER), "minItems": 2, "maxItems": 2}
SYMBOL_AT = obj({"symbol": STRING, "path": nullable(STRING)})
TEST_FILE = obj({"path": STRING, "names": STRINGS, "reason": {
    "type": "string", "enum": ["coverage", "imports", "calls", "name"]},
    "distance": INTEGER, "ageSeconds": INTEGER}, optional=("ageSeconds",))
"""A test file covering a change: the tests in it where known, the evidence, and how
many callers away (0: it refers to the definition itself; ``ageSeconds``: coverage
only, how old its data is)."""
DEPENDENT = obj({"symbol": STRING, "path": nullable(STRING),
                 "match": {"type": "string", "enum": ["resolved", "name"]}})

# --- repocontext_* ------------------------------------------------------------------

OUTLINE = obj({
    "path": STRING, "exists": BOOLEAN, "fullReadTokenCount": nullable(INTEGER),
    "digest": nullable(STRING), "fresh": BOOLEAN,
    "symbols": array(obj({"fqName": STRING, "kind": STRING, "signature": nullable(STRING),
                          "startLine": nullable(INTEGER), "endLine": nullable(INTEGER)})),
}, optional=("fresh",))

RELATED = obj({
    "path": nullable(STRING), "symbol": nullable(STRING),
    "imports": array(obj({"module": STRING, "path": nullable(STRING)})),
    "dependents": array(DEPENDENT), "tests": array(TEST_FILE),
})

COVERAGE_STATUS = obj({
    "status": {"type": "string", "enum": ["none", "fresh", "stale", "partial"]},
    "measuredAt": nullable(STRING), "staleFiles": STRINGS,
})

CHANGED = obj({
    "added": STRINGS, "updated": STRINGS, "removed": STRINGS,
    "changedSymbols": array(obj({"fqName": STRING, "path": STRING, "change": {
        "type": "string", "enum": ["added", "modified", "removed"]}})),
    "containingChanges": array(obj({"fqName": STRING, "path": STRING})),
    "dependents": array(DEPENDENT), "tests": array(TEST_FILE),
    "coverage": COVERAGE_STATUS,
    "since": obj({"rev": STRING, "commit": STRING, "cutFiles": INTEGER}),
}, optional=("since",))

INDEX_STATUS = obj({
    "repoId": STRING,
    "status": {"type": "string", "enum": ["ready", "empty", "indexing", "failed"]},
    "phase": nullable(STRING), "files": INTEGER, "symbols": INTEGER,
    "counters": {"type": "object", "additionalProperties": nullable(INTEGER)},
    "timings": nullable({"type": "object", "additionalProperties": NUMBER}),
    "lastError": nullable(STRING), "ageSeconds": nullable(NUMBER),
})

STATS = obj({"calls": INTEGER, "responseTokens": INTEGER, "fullReadTokensReplaced": INTEGER,
             "netSaved": INTEGER})

_CHECK = obj({"ok": BOOLEAN, "path": STRING, "error": STRING}, optional=("path", "error"))
HEALTH = obj({"ok": BOOLEAN, "store": _CHECK, "export": _CHECK,
              "versions": {"type": "object", "additionalProperties": STRING}})

_HIT = obj({
    "score": NUMBER, "kind": {"type": "string", "enum": ["file", "symbol", "section", "memory"]},
    "path": nullable(STRING), "key": STRING, "symbol": nullable(STRING), "lines": LINE_SPAN,
    "reasons": STRINGS, "snippet": STRING, "fresh": BOOLEAN, "title": nullable(STRING),
    "topic": STRING,
}, optional=("symbol", "lines", "fresh", "title", "topic", "snippet"))
_HITS = {"hits": array(_HIT), "corrected": OPEN_OBJECT, "refreshed": STRINGS}
_AGE = {"indexAgeSeconds": nullable(NUMBER)}
"""How old the index answering is: seconds since its last pass committed."""

SEARCH = {
    **obj({"mode": STRING, "retrievalPath": STRING, **_HITS, **_AGE,
           "results": array(obj({"query": STRING, **_HITS}, optional=("corrected", "refreshed"))),
           }, optional=("hits", "corrected", "refreshed", "results")),
    "anyOf": [{"required": ["hits"]}, {"required": ["results"]}],
}

SYMBOLS = obj({"mode": STRING, "retrievalPath": STRING, **_HITS, **_AGE},
              optional=("corrected", "refreshed"))

_UNIT = obj({"kind": STRING, "receipt": STRING})
CONTEXT = obj({
    "entries": array(obj({"path": STRING, "contentHash": nullable(STRING), "detail": STRING,
                          "fullReadTokenCount": nullable(INTEGER), "reasons": STRINGS,
                          "units": array(_UNIT)})),
    "reused": array(obj({"path": STRING, "kind": STRING, "receipt": STRING})),
    "omitted": INTEGER, "retrievalPath": STRING, "responseBudgetTokens": INTEGER,
    "responseTokens": INTEGER, "retryBudgetTokens": nullable(INTEGER),
}, optional=("retryBudgetTokens",))

# --- memory ----------------------------------------------------------------------------

_EXPIRY = {"expiresAtUtc": nullable(STRING), "remainingSeconds": nullable(INTEGER)}
_STALENESS = {"stale": nullable(BOOLEAN), "staleLinks": nullable(array(OPEN_OBJECT)),
              "danglingLinks": nullable(array(OPEN_OBJECT))}
_LINKS = {"type": "object", "additionalProperties": STRINGS}

REMEMBER = obj({"key": STRING, "created": BOOLEAN, "expiresAtUtc": nullable(STRING),
                "linksAdded": INTEGER, "notIndexed": STRINGS})

RECALL = obj({"key": STRING, "exists": BOOLEAN, "kind": nullable(STRING), "topic": STRING,
              "id": STRING, "fields": OPEN_OBJECT, "tags": STRINGS, "links": _LINKS,
              "revisions": INTEGER, **_EXPIRY, **_STALENESS})

UPDATE = obj({"key": STRING, "updated": STRINGS, "tagsAdded": STRINGS, "tagsRemoved": STRINGS,
              "linksAdded": INTEGER, "linksRemoved": INTEGER, "notIndexed": STRINGS,
              **_EXPIRY})

FORGET = obj({"key": STRING, "existed": BOOLEAN, "forgotten": BOOLEAN, "lapsed": BOOLEAN,
              "expiresAtUtc": nullable(STRING)})

NEIGHBORS = obj({
    "key": STRING, "exists": BOOLEAN, "truncated": BOOLEAN,
    "neighbors": array(obj({"key": STRING, "family": STRING, "relation": STRING,
                            "direction": STRING, "depth": INTEGER, "exists": BOOLEAN})),
})

SCAN = obj({"scope": STRING, "entries": array(obj({"key": STRING})),
            "continuationToken": nullable(STRING)})

LIST_TOPICS = obj({"topics": array(obj({"topic": STRING, "count": INTEGER})),
                   "total": INTEGER})

# --- ContextPull's reader tools (contextpull/read/tools.json) --------------------------------

_SECTION = {"id": STRING, "doc": STRING, "heading_path": STRING, "kind": STRING}
_SHOWN = obj({**_SECTION, "text": STRING})

CONTEXTPULL: dict[str, Schema] = {
    "search": obj({"hits": array(obj({**_SECTION, "snippet": STRING, "score": NUMBER})),
                   "mode": {"type": "string", "enum": ["lexical", "hybrid"]}, "hint": STRING},
                  optional=("hint",)),
    "read": obj({**_SECTION, "text": STRING, "prev": nullable(STRING), "next": nullable(STRING),
                 "context": array(_SHOWN)}),
    "grep": obj({"matches": array(obj({"id": STRING, "doc": STRING, "heading_path": STRING,
                                       "line": STRING})),
                 "truncated": BOOLEAN}),
    "neighbours": obj({"sections": array(_SHOWN), "header": nullable(_SHOWN)}),
    "index": obj({"text": STRING, "mode": STRING, "prefix": STRING},
                 optional=("mode", "prefix")),
}
"""Output schemas of ContextPull's tools, by name (their inputs come from tools.json)."""
