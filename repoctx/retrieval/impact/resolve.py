"""retrieval/impact/resolve — which definition a reference means, and who depends on one.

A Python file spells what it references as far as it says itself (``from flask
import url_for`` -> ``flask.url_for``, the ``to:`` fields of the cross-reference
node). ``canonical`` turns a spelling into the definition it means: a declared symbol
is itself; else the longest module prefix that is a file of the store is read for what
it binds the next name to (an ``__init__`` re-exporting ``from .helpers import
url_for``), and an undeclared member of a declared class is looked up on the class's
bases (its signature, resolved through the class's own ``targets``). The module -> file
map is built once per generation of the file tree; it also names a file by its path
below a directory that is no package, for layouts such as ``lib/pkg/``. Each rewrite
counts against ``MAX_DEPTH`` and a spelling met twice stops; a spelling outside the
store (``werkzeug.utils.send_file``) stays as it is.

``dependents_of`` splits the symbols referencing a definition's simple name:
``resolved`` (a spelling of theirs means the definition, or, for a file of another
language, the file imports the definition's file, is that file or shares its Go
package), left out (each of their spellings means another definition for sure: a
declared one or one outside the store; or their file imports another file declaring the
name and not the definition's), else ``name`` (also a spelling through a variable or
an attribute, whose type the store does not know).
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from repoctx.extract import (
    imports_of,
    language_of,
    module_name,
    resolve_import,
    simple_name,
)
from repoctx.reconcile.nodes import content_record, file_node, symbol_record, xref_record
from repoctx.retrieval.impact.store_files import StoreFiles, bindings
from repoctx.retrieval.symbols import LOOKUP_LIMIT, declarations, where
from repoctx.retrieval.workspace import Workspace
from repoctx.trees import BY_FAMILY

MAX_DEPTH = 5
"""Most rewrites (re-export hops, base classes) one spelling goes through."""
RESOLVED, NAME = "resolved", "name"
_JS_FILES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_SUPERCLASSES = re.compile(r"^class\s+\w+\s*(?:\[[^\]]*\])?\s*\((.*)\)\s*:?\s*$")


def canonical(ws: Workspace, spelling: str) -> str:
    """The declared definition ``spelling`` means, or ``spelling`` when none is found."""
    return _canonical(ws, spelling, MAX_DEPTH, set())


def _canonical(ws: Workspace, spelling: str, budget: int, seen: set[str]) -> str:
    if _declared(ws, spelling) or budget <= 0 or spelling in seen:
        return spelling
    seen.add(spelling)
    step = _via_module(ws, spelling) or _via_bases(ws, spelling, budget, seen)
    return spelling if step is None else _canonical(ws, step, budget - 1, seen)


def _declared(ws: Workspace, fq: str) -> bool:
    return bool(fq) and bool(declarations(ws, fq))


def _via_module(ws: Workspace, spelling: str) -> str | None:
    """The spelling after reading the longest module prefix that is a stored file."""
    parts = spelling.split(".")
    modules = module_files(ws)
    for cut in range(len(parts) - 1, 0, -1):
        path = modules.get(".".join(parts[:cut]))
        if path is None:
            continue
        module, rest = module_name(path), parts[cut:]
        bound = file_bindings(ws, path).get(rest[0])
        if bound is not None and bound != f"{module}.{rest[0]}":
            return ".".join([bound, *rest[1:]])
        moved = ".".join([module, *rest])
        return moved if moved != spelling else None
    return None


def _via_bases(ws: Workspace, spelling: str, budget: int, seen: set[str]) -> str | None:
    """A declared member of a base class of the longest declared class prefix."""
    parts = spelling.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        first = symbol_record.primary(declarations(ws, ".".join(parts[:cut])))
        if first is None:
            continue
        decl = first[1]
        if decl.kind != "class":
            return None
        member = ".".join(parts[cut:])
        for base in base_spellings(decl):
            found = _canonical(ws, f"{_canonical(ws, base, budget - 1, seen)}.{member}",
                               budget - 1, seen)
            if _declared(ws, found):
                return found
        return None
    return None


def base_spellings(decl: symbol_record.Declaration) -> list[str]:
    """The qualified spellings of a class's bases, as its own file spells them."""
    match = _SUPERCLASSES.match(decl.signature)
    if match is None:
        return []
    spelled = dict(decl.targets)
    out = []
    for item in match.group(1).split(","):
        written = item.split("[", 1)[0].strip()
        if written and "=" not in written and written.rpartition(".")[2] in spelled:
            out.append(spelled[written.rpartition(".")[2]])
    return out


def module_files(ws: Workspace) -> dict[str, str]:
    """Python module -> the stored file defining it (a source before a stub), also under
    the module its path names below a directory that is no package (``ext.tools`` for
    ``lib/ext/tools.py`` without ``lib/__init__.py``) when no other file shares it."""
    return ws.derived("python-modules", BY_FAMILY["file"].name, lambda: _module_map(ws),
                      dict[str, str])


def _module_map(ws: Workspace) -> dict[str, str]:
    paths = sorted((p for p in ws.indexed() if language_of(p) == "python"),
                   key=lambda p: (p.endswith(".pyi"), p))
    packages = {posixpath.dirname(p) for p in paths
                if posixpath.basename(p) in ("__init__.py", "__init__.pyi")}
    exact: dict[str, str] = {}
    for path in paths:
        exact.setdefault(module_name(path), path)
    below: dict[str, str | None] = {}
    for path in exact.values():
        parts = path.split("/")
        for cut in range(1, len(parts)):
            if "/".join(parts[:cut]) not in packages:
                module = module_name("/".join(parts[cut:]))
                below[module] = path if below.get(module, path) == path else None
    return {**{m: p for m, p in below.items() if p is not None}, **exact}


def file_bindings(ws: Workspace, path: str) -> dict[str, str]:
    """What the names of a stored Python file stand for (its imports and definitions:
    ``store_files.bindings``)."""
    cache = ws.derived("python-bindings", content_record.CONTENT_TREE, dict,
                       dict[str, dict[str, str]])
    if path not in cache:
        cache[path] = bindings(ws, path)
    return cache[path]


def dependents_of(ws: Workspace, fq: str) -> list[dict[str, Any]]:
    """``[{symbol, path, match}]`` referencing the definition ``fq``: resolved first."""
    name = simple_name(fq)
    rec = ws.get(ws.store.key("xref", name))
    verdicts: dict[str, set[str | None]] = {}
    for number, (spelling, members) in enumerate(sorted(xref_record.targets(rec).items())):
        if number >= LOOKUP_LIMIT:
            break  # the rest count as references by name
        verdict = _verdict(ws, spelling, fq)
        for member in members:
            verdicts.setdefault(member, set()).add(verdict)
    resolved = sorted(m for m, found in verdicts.items() if RESOLVED in found)
    left_out = {m for m, found in verdicts.items() if found == {None}}
    target_path = where(ws, fq)
    named = []
    rest = xref_record.members(rec, xref_record.DEPENDENTS) | set(verdicts)
    for member in sorted(rest - left_out - set(resolved)):
        if len(resolved) + len(named) >= LOOKUP_LIMIT:
            break
        path = where(ws, member)
        if member in verdicts:  # a spelling through something of unknown type
            named.append((member, path))
            continue
        match = _file_match(ws, path, target_path, name)
        if match is RESOLVED:
            resolved.append(member)
        elif match is NAME:
            named.append((member, path))
    out = [{"symbol": m, "path": where(ws, m), "match": RESOLVED}
           for m in sorted(resolved)[:LOOKUP_LIMIT]]
    out += [{"symbol": m, "path": p, "match": NAME}
            for m, p in named[:LOOKUP_LIMIT - len(out)]]
    return out


def _verdict(ws: Workspace, spelling: str, fq: str) -> str | None:
    """``RESOLVED`` when ``spelling`` means ``fq``; None when it means another definition
    for sure (a declared one, or one outside the store); else ``NAME``: the spelling
    goes through something the store does not say the type of (a variable, an attribute
    set at run time, a base class outside the store)."""
    if spelling == fq:
        return RESOLVED
    means = canonical(ws, spelling)
    if means == fq:
        return RESOLVED
    if _declared(ws, means) or not _in_store(ws, means):
        return None
    return NAME


def _in_store(ws: Workspace, spelling: str) -> bool:
    """True when a module prefix of ``spelling`` is a file of the store (a Python module,
    or a JavaScript/TypeScript file spelled without its suffix), or a prefix is a declared
    class (the member is inherited or set at run time)."""
    modules = module_files(ws)
    parts = spelling.split(".")
    prefixes = [".".join(parts[:cut]) for cut in range(1, len(parts))]
    return any(p in modules or any(ws.node(p + s) is not None for s in _JS_FILES)
               for p in prefixes) or any(_declared(ws, p) for p in prefixes)


def dependents_all(ws: Workspace, fqs: set[str]) -> list[dict[str, Any]]:
    """``dependents_of`` over several definitions, one entry per symbol (resolved when
    any definition resolves it), resolved first, then in symbol order."""
    seen: dict[str, dict[str, Any]] = {}
    for fq in sorted(fqs):
        for entry in dependents_of(ws, fq):
            held = seen.get(entry["symbol"])
            if held is None or (entry["match"] == RESOLVED and held["match"] == NAME):
                seen[entry["symbol"]] = entry
    return sorted(seen.values(), key=lambda e: (e["match"] != RESOLVED, e["symbol"]))


def _file_match(ws: Workspace, path: str | None, target: str | None, name: str) -> str | None:
    """How a dependent without spellings relates to the definition, file by file:
    ``RESOLVED``, ``NAME`` or None (its file imports another declaration of ``name``)."""
    if path is None or target is None or language_of(path) in ("python", None):
        return NAME
    if path == target or (path.endswith(".go") and target.endswith(".go")
                          and posixpath.dirname(path) == posixpath.dirname(target)):
        return RESOLVED
    files = StoreFiles(ws)
    imported = _imported_files(ws, files, path)
    if any(_same_unit(found, target) for found in imported):
        return RESOLVED
    if any(_declares(ws, files, found, name) for found in imported):
        return None
    return NAME


def _imported_files(ws: Workspace, files: StoreFiles, path: str) -> list[str]:
    body = files.read(path) or ""
    found = (resolve_import(path, item.specifier, files) for item in imports_of(path, body))
    return sorted({f for f in found if f is not None})


def _same_unit(imported: str, target: str) -> bool:
    """True when an import names the target's file (for Go, its package directory)."""
    if imported.endswith(".go") and target.endswith(".go"):
        return posixpath.dirname(imported) == posixpath.dirname(target)
    return imported == target


def _declares(ws: Workspace, files: StoreFiles, imported: str, name: str) -> bool:
    """True when the imported file (a Go package: any file of its directory) declares
    a symbol called ``name``."""
    unit = (files.listdir(posixpath.dirname(imported)) if imported.endswith(".go")
            else (imported,))
    for path in unit:
        node = ws.node(path)
        if node is not None and node.has(file_node.SYMBOLS) and any(
                simple_name(fq) == name for fq in node.symbols):
            return True
    return False
