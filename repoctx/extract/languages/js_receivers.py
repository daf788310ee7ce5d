"""extract/languages/js_receivers — the class a JavaScript/TypeScript member call is made on,
where the file itself says it.

A call `recv.m()` (or a binding `const f = recv.m`) is spelled `<module>.C.m` when
`recv` is known to be of class `C`:
`this` inside a class's body (not inside a nested `function`, which rebinds it); the
class itself (`C.create()`, a static member); `new C(…)`; a local bound to `new C(…)`
or a parameter annotated `x: C`, in the function holding the call. `C` is spelled by
the file: a class it declares at the top (`<module>.C`), or a name it imports from a
relative path (`import { C as D } from "./c.js"` in `src/a.ts` -> `src/c.C`).

What the file alone cannot qualify is spelled as a receiver chain for the store to
resolve (`receiver_chain`): a name imported from a package is `?.C` (`import { ZodString }
from "zod"`, `z.ZodCatch` after `import * as z from "zod"` or `import { z } from "zod"`: a
class of that name, module unknown), and a call's result is the callee's spelling with
`()` (`z.string().min(5)` -> `?.string().min`; `s.f().m()` after `import * as s from
"./s"` -> `s.f().m`). Any other receiver (a deeper chain, an untyped parameter) has no
spelling.

Invariants: pure; no I/O; never raises on a parsed tree.
"""

from __future__ import annotations

import posixpath
from typing import Final

from tree_sitter import Node

from repoctx.extract.treewalk import text_of

_CLASSES: Final = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_REBINDS_THIS: Final = frozenset({"function_declaration", "function_expression",
                                  "generator_function_declaration", "function"})
_FUNCTIONS: Final = _REBINDS_THIS | {"method_definition", "arrow_function"}
_USES: Final = frozenset({"call_expression", "new_expression", "variable_declarator"})
"""Where a member is a reference: called, constructed, or bound (`const s = C.create`)."""
_TOP: Final = frozenset({"program", "export_statement"})
_JS_SUFFIXES: Final = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
UNKNOWN_MODULE: Final = "?"
"""The module part of a spelling whose module is a package's (resolved by name)."""


def receiver_chain(spelling: str) -> bool:
    """True for a spelling the store resolves when asked (module docstring), not a
    qualified name."""
    return spelling.startswith(UNKNOWN_MODULE + ".") or "()" in spelling


def receiver_targets(root: Node, path: str, module: str) -> list[tuple[int, str, str]]:
    """``(byte offset of the member name, name, spelling)`` of member calls and
    constructions whose receiver the file says."""
    classes, namespaces = _spelled_names(root, path, module)
    out: list[tuple[int, str, str]] = []
    _walk(root, None, {}, _Names(classes, namespaces), module, out)
    return out


class _Names:
    """What the file's top spells: classes (and imported names) and namespace imports."""

    __slots__ = ("classes", "namespaces")

    def __init__(self, classes: dict[str, str], namespaces: dict[str, str]) -> None:
        self.classes = classes
        self.namespaces = namespaces


def _spelled_names(root: Node, path: str, module: str,
                   ) -> tuple[dict[str, str], dict[str, str]]:
    """Name -> spelling of the classes the file declares at its top and of the names it
    imports; namespace import -> the module it stands for."""
    classes: dict[str, str] = {}
    namespaces: dict[str, str] = {}
    for node in root.named_children:
        declared = node.child_by_field_name("declaration") if node.type == "export_statement" \
            else node
        if declared is not None and declared.type in _CLASSES:
            name = text_of(declared.child_by_field_name("name"))
            if name:
                classes[name] = f"{module}.{name}"
        if node.type == "import_statement":
            _imported(node, path, classes, namespaces)
    return classes, namespaces


def _imported(node: Node, path: str, classes: dict[str, str],
              namespaces: dict[str, str]) -> None:
    source = node.child_by_field_name("source")
    written = text_of(source).strip("\"'`") if source is not None else ""
    if not written:
        return
    target_module = UNKNOWN_MODULE
    if written.startswith(("./", "../")):
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), written))
        stem, suffix = posixpath.splitext(target)
        target_module = stem if suffix in _JS_SUFFIXES else target
    for spec in _descendants(node, "import_specifier"):
        name = text_of(spec.child_by_field_name("name"))
        alias = text_of(spec.child_by_field_name("alias")) or name
        if name and alias:
            classes[alias] = f"{target_module}.{name}"
            if target_module == UNKNOWN_MODULE:  # `import { z } from "zod"`: `z.string()`
                namespaces[alias] = UNKNOWN_MODULE
    for namespace in _descendants(node, "namespace_import"):
        bound = next((c for c in namespace.named_children if c.type == "identifier"), None)
        if bound is not None:
            namespaces[text_of(bound)] = target_module


def _descendants(node: Node, kind: str) -> list[Node]:
    found, stack = [], [node]
    while stack:
        item = stack.pop()
        if item.type == kind:
            found.append(item)
        stack.extend(item.named_children)
    return found


def _walk(node: Node, this: str | None, scope: dict[str, str], spelled: _Names,
          module: str, out: list[tuple[int, str, str]]) -> None:
    """Depth first, in source order; ``this`` the spelled class of ``this``, ``scope``
    the locals of known class (a function copies it: its bindings stay inside)."""
    classes = spelled.classes
    stack: list[tuple[Node, str | None, dict[str, str]]] = [(node, this, scope)]
    while stack:
        item, this_class, names = stack.pop()
        kind = item.type
        if kind in _CLASSES:
            name = text_of(item.child_by_field_name("name"))
            own = classes.get(name) if item.parent is not None and (
                item.parent.type in _TOP) else None
            this_class = own or (f"{module}.{name}" if name else None)
        elif kind in _FUNCTIONS:
            names = {**names, **_typed_parameters(item, classes)}
            if kind in _REBINDS_THIS:
                this_class = None
        elif kind == "variable_declarator":
            _bind(item, names, classes)
        elif kind == "member_expression" and item.parent is not None and (
                item.parent.type in _USES):
            _member(item, this_class, names, spelled, out)
        stack.extend((child, this_class, names) for child in reversed(item.named_children))


def _typed_parameters(function: Node, classes: dict[str, str]) -> dict[str, str]:
    parameters = function.child_by_field_name("parameters")
    out: dict[str, str] = {}
    for parameter in parameters.named_children if parameters is not None else ():
        pattern, typed = parameter.child_by_field_name("pattern"), parameter.child_by_field_name(
            "type")
        if pattern is None or typed is None or pattern.type != "identifier":
            continue
        written = next((c for c in typed.named_children if c.type == "type_identifier"), None)
        if written is not None and text_of(written) in classes:
            out[text_of(pattern)] = classes[text_of(written)]
    return out


def _bind(declarator: Node, names: dict[str, str], classes: dict[str, str]) -> None:
    """``const x = new C(…)`` makes ``x`` a ``C`` (in place: later statements see it)."""
    name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
    if name is None or name.type != "identifier":
        return
    constructed = _constructed(value, classes)
    if constructed is not None:
        names[text_of(name)] = constructed
    else:
        names.pop(text_of(name), None)  # a rebinding to something unknown


def _constructed(value: Node | None, classes: dict[str, str]) -> str | None:
    if value is None or value.type != "new_expression":
        return None
    constructor = value.child_by_field_name("constructor")
    return classes.get(text_of(constructor)) if constructor is not None else None


def _member(member: Node, this_class: str | None, names: dict[str, str], spelled: _Names,
            out: list[tuple[int, str, str]]) -> None:
    receiver, prop = member.child_by_field_name("object"), member.child_by_field_name("property")
    if receiver is None or prop is None or prop.type != "property_identifier":
        return
    if receiver.type == "parenthesized_expression" and receiver.named_children:
        receiver = receiver.named_children[0]
    if receiver.type == "this":
        written = this_class
    elif receiver.type == "identifier":
        written = names.get(text_of(receiver)) or spelled.classes.get(text_of(receiver))
    elif receiver.type == "call_expression":
        callee = _callee(receiver.child_by_field_name("function"), spelled)
        written = f"{callee}()" if callee else None
    else:
        written = _constructed(receiver, spelled.classes) or _callee(receiver, spelled)
    if written:
        out.append((prop.start_byte, text_of(prop), f"{written}.{text_of(prop)}"))


def _callee(node: Node | None, spelled: _Names) -> str | None:
    """The spelling of an imported name, or of a namespace import's member (``z.string``
    -> ``?.string``), when ``node`` is one."""
    if node is None:
        return None
    if node.type == "identifier":
        found = spelled.classes.get(text_of(node))
        return found
    if node.type != "member_expression":
        return None
    namespace, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
    if namespace is None or prop is None or namespace.type != "identifier" or (
            text_of(namespace) not in spelled.namespaces):
        return None
    return f"{spelled.namespaces[text_of(namespace)]}.{text_of(prop)}"
