"""tools/memory — the memory tools: remember, recall, update, forget, neighbors,
scan, list_topics; and ``memory_hits`` for the search to fuse.

Thin wrappers over ``repoctx.memory``: the schemas here pin the shapes, defaults and
ranges; the memory layer checks everything else (names, links, body size,
TTLs) before it writes, so bad input is a ``ToolError`` with nothing written.
"""

from __future__ import annotations

from typing import Any

from repoctx import memory
from repoctx.memory.entries import MAX_TTL_SECONDS
from repoctx.retrieval.workspace import Workspace
from repoctx.tools import outputs
from repoctx.tools.spec import Tool, integer, schema, string, strings

_KEY = string("Memory key repo/{repoId}/mem/{topic}/{id}.", 1024)
_LINKS = {"type": "object", "description": "Relation -> list of target keys: files "
          "repo/{id}/file/{path}, symbols repo/{id}/symbol/{fqName} or memory entries."}
_TEXT = {"type": "string", "maxLength": 4096}
_BODY = {"type": "string", "maxLength": memory.MAX_BODY_BYTES,
         "description": "Body text (at most 64 KiB of UTF-8)."}


def _remember(ws: Workspace, a: dict[str, Any]) -> dict[str, Any]:
    return memory.remember(
        ws.store, a["topic"], a.get("id"), kind=a.get("kind"), title=a.get("title"),
        body=a.get("body"), author=a.get("author"), provenance=a.get("provenance"),
        tags=a.get("tags") or (), add_links=a.get("addLinks"), ttl_seconds=a.get("ttlSeconds"))


def _update(ws: Workspace, a: dict[str, Any]) -> dict[str, Any]:
    return memory.update(
        ws.store, a["key"], a.get("fields"), add_tags=a.get("addTags") or (),
        remove_tags=a.get("removeTags") or (), add_links=a.get("addLinks"),
        remove_links=a.get("removeLinks"))


def _scan(ws: Workspace, a: dict[str, Any]) -> dict[str, Any]:
    return memory.scan(ws.store, a["scope"], topic=a.get("topic"),
                       path_prefix=a.get("pathPrefix"), page_size=a["pageSize"],
                       continuation_token=a.get("continuationToken"))


TOOLS: tuple[Tool, ...] = (
    Tool(
        "repocontext_remember",
        "Store a decision, note or memory next to the code: a topic, an optional id (one "
        "is generated), title, body, author, provenance, tags, typed links to files, "
        "symbols or other entries (the linked code's digest is captured so later drift "
        "shows as stale) and an optional time to live. Answers the entry's key.",
        schema({"topic": string("Topic (no '/', no control characters).", 128),
                "id": string("Entry id within the topic (default: generated).", 128),
                "kind": {"type": "string", "enum": list(memory.KINDS),
                         "description": "decision, note or memory (default note; set on "
                                        "create)."},
                "title": _TEXT, "body": _BODY, "author": _TEXT, "provenance": _TEXT,
                "tags": strings("Tags."), "addLinks": _LINKS,
                "ttlSeconds": {"type": "integer", "minimum": 1, "maximum": MAX_TTL_SECONDS,
                               "description": "Expire after this many seconds."}},
               ("topic",)),
        # Given fields of an existing entry are overwritten; without an id each call
        # creates another entry.
        _remember, read_only=False, destructive=True, idempotent=False,
        title="Remember a note", output_schema=outputs.REMEMBER,
    ),
    Tool(
        "repocontext_recall",
        "Read one memory entry: kind, fields, tags, links, expiry, and whether its links "
        "to files and symbols went stale (the code changed since the link was made) or "
        "dangle (the target is not in the index).",
        schema({"key": _KEY}, ("key",)),
        lambda ws, a: memory.recall(ws.store, a["key"]),
        title="Recall a memory entry", output_schema=outputs.RECALL,
    ),
    Tool(
        "repocontext_update",
        "Edit an existing memory entry: set fields (title, body, author, provenance; each "
        "a last-writer-wins write, untouched fields kept; a body edit changes only the "
        "changed region), add or remove tags and links. The remaining TTL is kept.",
        schema({"key": _KEY,
                "fields": {"type": "object", "description": "Field -> new value."},
                "addTags": strings("Tags to add."), "removeTags": strings("Tags to remove."),
                "addLinks": _LINKS, "removeLinks": _LINKS}, ("key",)),
        _update, read_only=False, destructive=True, title="Edit a memory entry",
        output_schema=outputs.UPDATE,
    ),
    Tool(
        "repocontext_forget",
        "Delete a memory entry, or with lapse=true let it expire after lapseSeconds (a "
        "lapse never shortens a later expiry).",
        schema({"key": _KEY,
                "lapse": {"type": "boolean", "default": False,
                          "description": "Expire instead of deleting now."},
                "lapseSeconds": integer("Seconds until a lapse expires.", 1, MAX_TTL_SECONDS,
                                        60)}, ("key",)),
        lambda ws, a: memory.forget(ws.store, a["key"], lapse=a["lapse"],
                                    lapse_seconds=a["lapseSeconds"]),
        read_only=False, destructive=True, title="Forget a memory entry",
        output_schema=outputs.FORGET,
    ),
    Tool(
        "repocontext_neighbors",
        "Walk the links around a memory entry, file or symbol breadth-first: what it "
        "links to and which entries link to it, each neighbour checked for staleness.",
        schema({"key": string("A memory, file or symbol key.", 1024),
                "relation": string("Follow only this relation.", 64),
                "depth": integer("Hops.", 1, 3, 1),
                "maxNodes": integer("Most neighbours.", 1, 100, 50)}, ("key",)),
        lambda ws, a: memory.neighbors(ws.store, a["key"], relation=a.get("relation"),
                                       depth=a["depth"], max_nodes=a["maxNodes"]),
        title="Links around an entry, file or symbol", output_schema=outputs.NEIGHBORS,
    ),
    Tool(
        "repocontext_scan",
        "Page through files, packages, symbols, memory entries or one topic in key order. "
        "Bulk pages do not evaluate staleness or expiry (those fields are null); recall a "
        "key for them.",
        schema({"scope": {"type": "string", "enum": list(memory.SCOPES),
                          "description": "What to page through."},
                "topic": string("The topic, for scope topic.", 128),
                "pathPrefix": string("Only keys whose name starts with this."),
                "pageSize": integer("Entries per page.", 1, 500, 100),
                "continuationToken": string("From the previous page.", 8192)}, ("scope",)),
        _scan, title="Page through the store", output_schema=outputs.SCAN,
    ),
    Tool(
        "repocontext_list_topics",
        "List the memory topics with how many live entries each holds.",
        schema({}),
        lambda ws, a: memory.list_topics(ws.store),
        title="Memory topics", output_schema=outputs.LIST_TOPICS,
    ),
)


def memory_hits(ws: Workspace, query: str, k: int = 10) -> list[dict[str, Any]]:
    """Keyword hits over live memory entries, shaped for ``repocontext_search`` to fuse:
    ``{score, key, kind: "memory", path: None, snippet, reasons, title, topic}``."""
    return memory.memory_hits(ws.store, query, k)
