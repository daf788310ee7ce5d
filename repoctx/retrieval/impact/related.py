"""retrieval/impact/related — ``repocontext_related``: imports, dependents and covering tests.

A bounded reverse lookup in the cross-reference tree, never a scan: for a file, over
the simple names it declares; for a symbol, over its own simple name. Covering tests
are test files, ranked by the static evidence of ``covering``. A dotted symbol
must be one the store declares (else a ``ToolError`` naming it, with the nearest names).
Dependents of a definition (a dotted symbol, or each one a file declares) say their
``match`` (``impact.resolve``): ``resolved`` ones, whose reference means that very
definition, come first, then those matched by simple name only; those whose reference
means another definition are left out. A simple name alone matches by name.
Imports are the file's, resolved to files the store knows (``impact.imports``). Each
list holds at most ``k`` entries; ``omitted`` counts the entries each list left out.
"""

from __future__ import annotations

from typing import Any

from repoctx.errors import ToolError
from repoctx.extract import simple_name
from repoctx.reconcile.nodes import symbol_record, xref_record
from repoctx.retrieval.impact import covering
from repoctx.retrieval.impact.imports import imports
from repoctx.retrieval.impact.resolve import NAME, RESOLVED, dependents_all
from repoctx.retrieval.symbols import declarations, reverse_names, suggestions, where
from repoctx.retrieval.workspace import Workspace
from repoctx.trees import family_prefix, unescape_name

DEFAULT_K = 20
"""Entries per list by default: flask's ``ctx.py`` (imports 17, dependents 322, tests 197)
then answers in about 1,100 tokens (k=30: 1,450; k=50: 2,200; everything: ~9,900)."""
K_MIN, K_MAX = 1, 200


def related(ws: Workspace, path: str | None = None, symbol: str | None = None,
            k: int = DEFAULT_K) -> dict[str, Any]:
    """What a file or symbol imports, what depends on it and which tests cover it."""
    if (path is None) == (symbol is None):
        raise ToolError("give exactly one of path or symbol")
    if isinstance(k, bool) or not isinstance(k, int):
        raise ToolError(f"k: must be an integer from {K_MIN} to {K_MAX} (got {k!r})")
    k = max(K_MIN, min(K_MAX, k))
    if symbol is not None:
        symbol = _symbol_name(ws, symbol)
        path = _declaring_path(ws, symbol)
        names = {simple_name(symbol)}
        targets = [(symbol, path)]
        definitions = {symbol} if path is not None else set()
    else:
        node = ws.node(path)
        if node is None:
            raise ToolError(f"path: {path!r} is not in the index; check the path or run "
                            "`repoctx index`")
        names = {simple_name(fq) for fq in node.symbols}
        targets = [(fq, path) for fq in node.symbols]
        definitions = set(node.symbols)
    found = {"imports": imports(ws, path) if path else [],
             "dependents": sorted(_dependents(ws, definitions, names),
                                  key=lambda e: (e["match"] != RESOLVED, _in_tests(e["symbol"]),
                                                 e["symbol"])),
             "tests": covering.covering_tests(ws, targets, K_MAX)}
    out: dict[str, Any] = {"path": path, "symbol": symbol}
    for key in ("imports", "dependents", "tests"):
        out[key] = found[key][:k]
    out["omitted"] = {key: len(found[key]) - len(out[key]) for key in found}
    return out


def _dependents(ws: Workspace, definitions: set[str], names: set[str],
                ) -> list[dict[str, Any]]:
    """Resolved and by-name dependents of the definitions; a simple name alone (no
    definitions) says no definition, so its dependents are all by name."""
    if definitions:
        return dependents_all(ws, definitions)
    return [{"symbol": fq, "path": where(ws, fq), "match": NAME}
            for fq in reverse_names(ws, names, xref_record.DEPENDENTS)]


def _in_tests(fq: str) -> bool:
    """True for a name under a test module, class or function (listed after the rest:
    ``tests`` lists the covering tests already)."""
    return any(part.startswith(("test", "Test")) for part in fq.split("."))


def _symbol_name(ws: Workspace, symbol: str) -> str:
    """The fully-qualified name of ``symbol``, also given as its store key."""
    prefix = family_prefix(ws.store.repo_id, "symbol")
    return unescape_name(symbol[len(prefix):]) if symbol.startswith(prefix) else symbol


def _declaring_path(ws: Workspace, symbol: str) -> str | None:
    """The file declaring a dotted ``symbol`` (None for a simple name); a dotted name the
    store does not declare is a ``ToolError`` naming it and the nearest declared names."""
    if "." not in symbol:
        return None
    first = symbol_record.primary(declarations(ws, symbol))
    if first is not None:
        return first[0]
    near = suggestions(ws, symbol)
    hint = f"; did you mean {', '.join(map(repr, near))}?" if near else ""
    raise ToolError(f"symbol: {symbol!r} is not in the index{hint} (give a fully-qualified "
                    "name as search or outline report it, or a simple name)")
