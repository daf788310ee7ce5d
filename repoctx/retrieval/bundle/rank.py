"""retrieval/bundle/rank — candidates for a context bundle, and the default rankers.

A ranker is ``rank(ws, task, k) -> [Candidate]``, best first: a file, optionally the
symbol (fully-qualified) or line span that made it relevant, and why. The default uses
``repocontext_search`` (``retrieval.search.hits``) when that module is present, else the
ContextPull reader's lexical search over the export, mapping each hit's heading path
(``path > Class > method``) back to the symbol the file declares.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from repoctx.retrieval.query import MAX_TEXT_CHARS
from repoctx.retrieval.workspace import Workspace

CONTEXTPULL, SEARCH = "contextpull", "search"
_SEARCH_MODULE = "repoctx.retrieval.search.hits"
_READER_LIMIT = 100
QUERY_CHARS = MAX_TEXT_CHARS
"""A task is searched whole: search reduces a long text to a bounded query (task_text)."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One ranked candidate: a file and, when known, the symbol or lines that matched."""

    path: str
    symbol: str | None = None
    reason: str = SEARCH
    lines: tuple[int, int] | None = None


Ranker = Callable[[Workspace, str, int], list[Candidate]]


def default_rank(ws: Workspace, task: str, k: int) -> list[Candidate]:
    """``repocontext_search`` when it is available, else the reader's lexical search."""
    search = _search_function()
    if search is None:
        return reader_rank(ws, task, k)
    return search_rank(ws, task, k, search)


def _search_function() -> Callable[..., dict[str, Any]] | None:
    try:
        module = importlib.import_module(_SEARCH_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name != _SEARCH_MODULE:
            raise  # the module exists but something it imports does not: a real error
        return None
    return getattr(module, "search", None)


def search_rank(ws: Workspace, task: str, k: int,
                search: Callable[..., dict[str, Any]]) -> list[Candidate]:
    """Candidates from a ``search(ws, query, k=..., brief=True)`` answer's ``hits``."""
    out = []
    for hit in search(ws, search_query(task), k=k, brief=True).get("hits", []):
        path = hit.get("path")
        if isinstance(path, str) and path:
            symbol = hit.get("symbol")
            out.append(Candidate(path, symbol if isinstance(symbol, str) else None, SEARCH,
                                 hit_lines(hit.get("lines"))))
    return out


def search_query(task: str) -> str:
    """The query a task is searched with: the whole task (search reduces it), bounded."""
    return task[:QUERY_CHARS]


def hit_lines(value: object) -> tuple[int, int] | None:
    """A hit's ``[start, end]`` line span (1-based, inclusive), or None when malformed."""
    if (isinstance(value, list | tuple) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            and 1 <= value[0] <= value[1]):
        return value[0], value[1]
    return None


def reader_rank(ws: Workspace, task: str, k: int) -> list[Candidate]:
    """Candidates from the ContextPull reader's lexical search (one per hit section)."""
    hits = ws.reader().search(search_query(task), limit=max(1, min(k, _READER_LIMIT)))["hits"]
    out = []
    for hit in hits:
        path = hit["doc"]
        out.append(Candidate(path, section_symbol(ws, path, hit.get("heading_path", "")),
                             CONTEXTPULL))
    return out


def section_symbol(ws: Workspace, path: str, heading_path: str) -> str | None:
    """The fully-qualified symbol a code section's heading path names, if the file declares it.

    ``"pkg/mod.py > Cart > total"`` names ``Cart.total``; the file node's symbol list
    supplies the module prefix (``pkg.mod.Cart.total``).
    """
    parts = heading_path.split(" > ")
    if len(parts) < 2 or parts[0] != path:
        return None
    node = ws.node(path)
    if node is None:
        return None
    tail = "." + ".".join(parts[1:])
    return next((fq for fq in node.symbols if fq.endswith(tail)), None)
