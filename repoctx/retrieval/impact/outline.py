"""retrieval/impact/outline — ``repocontext_outline``: what a file declares, from the store
alone."""

from __future__ import annotations

from typing import Any

from repoctx.retrieval.symbols import declared_in
from repoctx.retrieval.workspace import Workspace


def outline(ws: Workspace, path: str) -> dict[str, Any]:
    """``{path, exists, fullReadTokenCount, digest, symbols[...]}`` for one file."""
    node = ws.node(path)
    if node is None:
        return {"path": path, "exists": False, "fullReadTokenCount": None, "digest": None,
                "symbols": []}
    symbols = [{"fqName": fq, "kind": d.kind, "signature": d.signature,
                "startLine": d.start_line, "endLine": d.end_line}
               for fq, d in declared_in(ws, path, node.symbols)]
    return {"path": path, "exists": True, "fullReadTokenCount": node.tokens,
            "digest": node.digest, "fresh": ws.is_fresh(path, node), "symbols": symbols}
