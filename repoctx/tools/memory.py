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

_KEY = string("A memory entry's key.", 1024)
_LINKS = {"type": "object", "description": "Relation: [paths, symbols or memory keys]."}
_TEXT = {"type": "string", "maxLength": 4096}
_BODY = {"type": "string", "maxLength": memory.MAX_BODY_BYTES,
         "description": "At most 64 KiB."}


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
        "Store a note or decision linked to files and symbols; a link goes stale when its code "
        "changes.",
        schema({"topic": string("Topic (no '/').", 128),
                "id": string("Id (default: new).", 128),
                "kind": {"type": "string", "enum": list(memory.KINDS)},
                "title": _TEXT, "body": _BODY, "author": _TEXT, "provenance": _TEXT,
                "tags": strings(), "addLinks": _LINKS,
                "ttlSeconds": {"type": "integer", "minimum": 1, "maximum": MAX_TTL_SECONDS,
                               "description": "Expire after seconds."}},
               ("topic",)),
        # Given fields of an existing entry are overwritten; without an id each call
        # creates another entry.
        _remember, read_only=False, destructive=True, idempotent=False,
        title="Remember a note", output_schema=outputs.REMEMBER,
    ),
    Tool(
        "repocontext_recall",
        "Read a memory entry, flagging stale or dangling links.",
        schema({"key": _KEY}, ("key",)),
        lambda ws, a: memory.recall(ws.store, a["key"]),
        title="Recall a memory entry", output_schema=outputs.RECALL,
    ),
    Tool(
        "repocontext_update",
        "Edit a memory entry: fields, tags, links.",
        schema({"key": _KEY,
                "fields": {"type": "object", "description": "Field: new value."},
                "addTags": strings(), "removeTags": strings(),
                "addLinks": _LINKS, "removeLinks": _LINKS}, ("key",)),
        _update, read_only=False, destructive=True, title="Edit a memory entry",
        output_schema=outputs.UPDATE,
    ),
    Tool(
        "repocontext_forget",
        "Delete a memory entry, or let it lapse.",
        schema({"key": _KEY,
                "lapse": {"type": "boolean", "default": False,
                          "description": "Expire instead of deleting."},
                "lapseSeconds": integer("Seconds to lapse.", 1, MAX_TTL_SECONDS,
                                        60)}, ("key",)),
        lambda ws, a: memory.forget(ws.store, a["key"], lapse=a["lapse"],
                                    lapse_seconds=a["lapseSeconds"]),
        read_only=False, destructive=True, title="Forget a memory entry",
        output_schema=outputs.FORGET,
    ),
    Tool(
        "repocontext_neighbors",
        "What a memory entry, file or symbol links to and is linked from.",
        schema({"key": string("A memory key, path or symbol.", 1024),
                "relation": string("Only this relation.", 64),
                "depth": integer("", 1, 3, 1),
                "maxNodes": integer("", 1, 100, 50)}, ("key",)),
        lambda ws, a: memory.neighbors(ws.store, a["key"], relation=a.get("relation"),
                                       depth=a["depth"], max_nodes=a["maxNodes"]),
        title="Links around an entry, file or symbol", output_schema=outputs.NEIGHBORS,
    ),
    Tool(
        "repocontext_scan",
        "Page through files, packages, symbols or memory in key order.",
        schema({"scope": {"type": "string", "enum": list(memory.SCOPES)},
                "topic": string("For scope topic.", 128),
                "pathPrefix": string("Key name prefix."),
                "pageSize": integer("", 1, 500, 100),
                "continuationToken": string("From the last page.", 8192)}, ("scope",)),
        _scan, title="Page through the store", output_schema=outputs.SCAN,
    ),
    Tool(
        "repocontext_list_topics",
        "Memory topics with their entry counts.",
        schema({}),
        lambda ws, a: memory.list_topics(ws.store),
        title="Memory topics", output_schema=outputs.LIST_TOPICS,
    ),
)


def memory_hits(ws: Workspace, query: str, k: int = 10) -> list[dict[str, Any]]:
    """Keyword hits over live memory entries, shaped for ``repocontext_search`` to fuse:
    ``{score, key, kind: "memory", path: None, snippet, reasons, title, topic}``."""
    return memory.memory_hits(ws.store, query, k)
