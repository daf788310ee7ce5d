"""extract/languages/python_bindings — what a Python file's names stand for, as it says itself.

A file binds names by ``import a.b`` (``a`` -> ``a``), ``import a.b as x`` (``x`` ->
``a.b``), ``from m import n [as k]`` (``k`` -> ``m.n``; relative modules resolved from
the file's own package, an ``__init__`` being its package) and by its module-level
``def`` / ``class`` (``n`` -> ``module.n``); a later binding of a name wins, as at run
time. A dotted use ``X.Y.n`` is spelled ``binding(X).Y.n``; ``self.n`` / ``cls.n`` in a
method is spelled after the method's class. Anything else has no spelling: the file
alone does not say what it means.

Invariants: pure functions of the syntax tree and the path; no I/O; never raise.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from tree_sitter import Node

from repoctx.extract.modules import module_name, qualify

_SELF = frozenset({"self", "cls"})


def package_of(path: str) -> str:
    """The package a file's relative imports start from (an ``__init__`` is its own)."""
    module = module_name(path)
    stem = posixpath.basename(posixpath.splitext(path.replace("\\", "/"))[0])
    return module if stem == "__init__" else module.rpartition(".")[0]


def absolute_module(path: str, written: str) -> str | None:
    """The absolute module a ``from`` clause names (``..m`` from ``pkg/sub/x.py`` ->
    ``pkg.m``); None above the top package."""
    level = len(written) - len(written.lstrip("."))
    if not level:
        return written
    base = package_of(path)
    for _ in range(level - 1):
        if not base:
            return None
        base = base.rpartition(".")[0]
    rest = written[level:]
    return f"{base}.{rest}" if base and rest else (base or rest or None)


def import_bindings(path: str, statements: Iterable[Node]) -> list[tuple[int, str, str]]:
    """``(byte offset, bound name, qualified spelling)`` of import statements."""
    out: list[tuple[int, str, str]] = []
    for statement in statements:
        offset = statement.start_byte
        names = statement.children_by_field_name("name")
        if statement.type == "import_statement":
            for item in names:
                dotted, alias = _aliased(item)
                if alias:
                    out.append((offset, alias, dotted))
                elif dotted:
                    head = dotted.partition(".")[0]
                    out.append((offset, head, head))
            continue
        module_node = statement.child_by_field_name("module_name")
        module = absolute_module(path, _text(module_node)) if module_node else None
        if module is None:
            continue
        for item in names:
            dotted, alias = _aliased(item)
            if dotted:
                out.append((offset, alias or dotted, f"{module}.{dotted}"))
    return out


def definition_bindings(module: str, spans: Iterable[tuple[int, str]],
                        ) -> list[tuple[int, str, str]]:
    """``(offset, name, module.name)`` of top-level definitions ``(offset, qualname)``."""
    return [(offset, qualname, qualify(module, qualname))
            for offset, qualname in spans if "." not in qualname]


def bindings(entries: Iterable[tuple[int, str, str]]) -> dict[str, str]:
    """Name -> spelling, the last binding in source order winning."""
    return {name: spelled for _, name, spelled in sorted(entries, key=lambda e: e[0])}


def spelling(dotted: str, bound: dict[str, str], method_class: str | None) -> str | None:
    """The qualified spelling of a use ``dotted`` (``n``, ``X.Y.n``, ``self.n``), or None."""
    head, dot, rest = dotted.partition(".")
    if head in _SELF and dot:
        return f"{method_class}.{rest}" if method_class else None
    target = bound.get(head)
    if target is None:
        return None
    return f"{target}.{rest}" if dot else target


def _aliased(node: Node) -> tuple[str, str]:
    """``(dotted name, alias or '')`` of an import item."""
    if node.type == "aliased_import":
        name, alias = node.child_by_field_name("name"), node.child_by_field_name("alias")
        return _text(name), _text(alias)
    return (_text(node) if node.type == "dotted_name" else ""), ""


def _text(node: Node | None) -> str:
    raw = b"" if node is None else (node.text or b"")
    return "".join(raw.decode("utf-8", "replace").split())
