"""retrieval/impact/related — ``repocontext_related``: imports, dependents and covering tests.

A bounded reverse lookup in the cross-reference tree, never a scan: for a file, over
the simple names it declares; for a symbol, over its own simple name. Covering tests
are test files, ranked by the static evidence of ``covering``. A dotted symbol
must be one the store declares (else a ``ToolError`` naming it, with the nearest names).
Dependents of a definition (a dotted symbol, or each one a file declares) say their
``match`` (``impact.resolve``): ``resolved`` ones, whose reference means that very
definition, come first, then those matched by simple name only; those whose reference
means another definition are left out. A simple name alone matches by name.
Imports are read from the stored body (Python ``import`` / ``from … import``) and
resolved to files the store knows: absolute modules from the repository root, the
file's own source root or ``src/``, relative ones (``.``, ``..``, ``from . import x``)
from the file's package. Each list holds at most ``k`` entries; ``omitted`` counts the
entries each list left out.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from repoctx.errors import ToolError
from repoctx.extract import imports_of, language_of, module_name, resolve_import, simple_name
from repoctx.reconcile.nodes import symbol_record, xref_record
from repoctx.retrieval.impact import covering
from repoctx.retrieval.impact.resolve import NAME, RESOLVED, dependents_all
from repoctx.retrieval.impact.store_files import StoreFiles
from repoctx.retrieval.symbols import declarations, reverse_names, suggestions, where
from repoctx.retrieval.workspace import Workspace
from repoctx.trees import family_prefix, unescape_name

DEFAULT_K = 20
"""Entries per list by default: flask's ``ctx.py`` (imports 17, dependents 322, tests 197)
then answers in about 1,100 tokens (k=30: 1,450; k=50: 2,200; everything: ~9,900)."""
K_MIN, K_MAX = 1, 200
_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*)", re.M)
_ITEM = re.compile(r"[(\s]*(\w+)")  # the imported name of ``name`` / ``name as alias``


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


def imports(ws: Workspace, path: str) -> list[dict[str, str | None]]:
    """Modules a file imports, each with the indexed file it resolves to: Python by the
    rules below, every other language with an extractor by its own (``extract``)."""
    body = ws.body(path) or ""
    if language_of(path) != "python":
        files = StoreFiles(ws)
        found_other: dict[str, str | None] = {}
        for item in imports_of(path, body):
            found_other.setdefault(item.specifier, resolve_import(path, item.specifier, files))
        return [{"module": m, "path": p} for m, p in found_other.items()]
    statements: list[tuple[int, list[tuple[str, str | None]]]] = []
    for match in _FROM.finditer(body):
        names = [m.group(1) for item in match.group(2).split(",") if (m := _ITEM.match(item))]
        entries = _from_import(ws, path, match.group(1), names)
        statements.append((match.start(), entries))
    for match in _IMPORT.finditer(body):
        modules = [m.strip() for m in match.group(1).split(",")]
        statements.append((match.start(), [(m, _absolute(ws, path, m)) for m in modules]))
    found: dict[str, str | None] = {}
    for _, entries in sorted(statements, key=lambda item: item[0]):
        for module, file in entries:
            found.setdefault(module, file)
    return [{"module": m, "path": p} for m, p in found.items()]


def _from_import(ws: Workspace, path: str, module: str, names: list[str],
                 ) -> list[tuple[str, str | None]]:
    """``(module, file)`` entries of one ``from module import names`` statement."""
    if not module.startswith("."):
        return [(module, _absolute(ws, path, module))]
    level = len(module) - len(module.lstrip("."))
    rest = module[level:]
    if rest:
        return [(module, _relative(ws, path, level, rest))]
    # ``from . import x``: each name is a submodule of the package, or a name its
    # ``__init__`` defines (then the entry is the package itself).
    out = []
    for name in names:
        found = _relative(ws, path, level, name)
        out.append((module + name, found) if found else (module, _relative(ws, path, level, "")))
    return out


def _relative(ws: Workspace, path: str, level: int, rest: str) -> str | None:
    """The file of a module ``level`` dots up from ``path``'s package, then ``rest``."""
    base = posixpath.dirname(path)
    for _ in range(level - 1):
        if not base:
            return None  # above the repository root
        base = posixpath.dirname(base)
    return _module_file(ws, posixpath.join(base, *rest.split(".")) if rest else base,
                        package=not rest)


def _absolute(ws: Workspace, path: str, module: str) -> str | None:
    """The file of an absolute ``module``: from the root, else from ``path``'s source
    root (the folders above its module path, such as ``src/``), else from ``src/`` (a
    test beside a src layout imports the package installed from there)."""
    parts = module_name(path).split(".")
    stem = posixpath.splitext(path)[0]
    if stem.endswith("/__init__") or stem == "__init__":
        stem = posixpath.dirname(stem)
    depth = len(parts) if parts != [""] else 0
    source_root = "/".join(stem.split("/")[:-depth]) if depth else posixpath.dirname(stem)
    relative = module.replace(".", "/")
    for root in dict.fromkeys(("", source_root, "src")):
        found = _module_file(ws, posixpath.join(root, relative) if root else relative)
        if found is not None:
            return found
    return None


def _module_file(ws: Workspace, base: str, package: bool = False) -> str | None:
    """The indexed file of the module at ``base`` (a package's ``__init__`` only when
    ``package``)."""
    candidates = [] if package else [f"{base}.py", f"{base}.pyi"]
    init = posixpath.join(base, "__init__") if base else "__init__"
    for candidate in (*candidates, f"{init}.py", f"{init}.pyi"):
        if ws.node(candidate) is not None:
            return candidate
    return None
