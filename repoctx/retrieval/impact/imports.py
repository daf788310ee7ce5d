"""retrieval/impact/imports — the modules a stored file imports, each with the indexed
file it resolves to.

The import statements are the stored ones (``store_files.written_imports``: kept at index time for
Python, else read from the stored body). Python (``import`` / ``from … import``):
absolute modules from the repository root, the file's own source root or ``src/``,
relative ones (``.``, ``..``, ``from . import x``) from the file's package. Every
other language with an extractor resolves by its own rules (``extract``'s import seam,
over ``StoreFiles``).
"""

from __future__ import annotations

import posixpath

from repoctx.extract import language_of, module_name, resolve_import
from repoctx.reconcile.nodes import file_node
from repoctx.retrieval.impact.store_files import StoreFiles, written_imports
from repoctx.retrieval.workspace import Workspace


def imports(ws: Workspace, path: str) -> list[dict[str, str | None]]:
    """Modules a file imports (``store_files.written_imports``), each with the indexed file it
    resolves to: Python by the rules below, every other language with an extractor by
    its own (``extract``)."""
    written = written_imports(ws, path)
    found: dict[str, str | None] = {}
    if language_of(path) != "python":
        files = StoreFiles(ws)
        for specifier, _ in written:
            if specifier not in found:
                found[specifier] = resolve_import(path, specifier, files)
        return [{"module": m, "path": p} for m, p in found.items()]
    for module, names in written:
        entries = ([(module, _absolute(ws, path, module))] if names is None
                   else _from_import(ws, path, module, list(names)))
        for name, file in entries:
            found.setdefault(name, file)
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
    test beside a src layout imports the package installed from there). Once per source
    root and module for each generation of the file tree (Django's 460 files importing
    for one ``changed`` ask ~3,800 times, mostly the same few hundred)."""
    parts = module_name(path).split(".")
    stem = posixpath.splitext(path)[0]
    if stem.endswith("/__init__") or stem == "__init__":
        stem = posixpath.dirname(stem)
    depth = len(parts) if parts != [""] else 0
    source_root = "/".join(stem.split("/")[:-depth]) if depth else posixpath.dirname(stem)
    known = ws.derived("python-absolute-modules", file_node.STRUCTURAL, dict,
                       dict[tuple[str, str], str | None])
    if (source_root, module) not in known:
        known[source_root, module] = _first_module_file(ws, source_root, module)
    return known[source_root, module]


def _first_module_file(ws: Workspace, source_root: str, module: str) -> str | None:
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
    indexed = ws.indexed()
    for candidate in (*candidates, f"{init}.py", f"{init}.pyi"):
        if candidate in indexed:
            return candidate
    return None
