"""retrieval/related — ``repocontext_related``: imports, dependents and covering tests.

A bounded reverse lookup in the cross-reference tree, never a scan: for a file, over
the simple names it declares; for a symbol, over its own simple name. Imports are
read from the stored body (Python ``import`` / ``from … import`` lines) and resolved
to files the store knows.
"""

from __future__ import annotations

import re
from typing import Any

from repoctx.errors import ToolError
from repoctx.reconcile import content_record, xref_record

from .symbols import reverse_all, simple_name, where
from .workspace import Workspace

_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+(?:\s*,\s*[\w.]+)*))",
                     re.M)


def related(ws: Workspace, path: str | None = None, symbol: str | None = None,
            ) -> dict[str, Any]:
    """What a file or symbol imports, what depends on it and which tests cover it."""
    if (path is None) == (symbol is None):
        raise ToolError("give exactly one of path or symbol")
    if symbol is not None:
        names = {simple_name(symbol)}
        path = where(ws, symbol) if "." in symbol else None
    else:
        node = ws.node(path)
        if node is None:
            raise ToolError(f"path: {path!r} is not in the index; check the path or run "
                            "`repoctx index`")
        names = {simple_name(fq) for fq in node.symbols}
    return {"path": path, "symbol": symbol,
            "imports": imports(ws, path) if path else [],
            "dependents": reverse_all(ws, names, xref_record.DEPENDENTS),
            "tests": reverse_all(ws, names, xref_record.TESTS)}


def imports(ws: Workspace, path: str) -> list[dict[str, str | None]]:
    """Modules a Python file imports, each with the indexed file it resolves to."""
    body = content_record.body(ws.store.get(ws.store.key("content", path))) or ""
    modules: list[str] = []
    for match in _IMPORT.finditer(body):
        found = [match.group(1)] if match.group(1) else match.group(2).split(",")
        modules += [m.strip() for m in found]
    return [{"module": m, "path": _module_path(ws, m)} for m in dict.fromkeys(modules)]


def _module_path(ws: Workspace, module: str) -> str | None:
    base = module.replace(".", "/")
    for candidate in (f"{base}.py", f"{base}/__init__.py", f"{base}.pyi"):
        if ws.node(candidate) is not None:
            return candidate
    return None
