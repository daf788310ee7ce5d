"""retrieval/impact/imports — the modules a stored file imports, each with the indexed
file it resolves to.

Python is read from the stored body (``import`` / ``from … import``): absolute modules
from the repository root, the file's own source root or ``src/``, relative ones (``.``,
``..``, ``from . import x``) from the file's package. Every other language with an
extractor resolves by its own rules (``extract``'s import seam, over ``StoreFiles``).
"""

from __future__ import annotations

import posixpath
import re

from repoctx.extract import imports_of, language_of, module_name, resolve_import
from repoctx.retrieval.impact.store_files import StoreFiles
from repoctx.retrieval.workspace import Workspace

_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*)", re.M)
_ITEM = re.compile(r"[(\s]*(\w+)")  # the imported name of ``name`` / ``name as alias``


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
    indexed = ws.indexed()
    for candidate in (*candidates, f"{init}.py", f"{init}.pyi"):
        if candidate in indexed:
            return candidate
    return None
