"""extract/links — what a file's text says about other modules: the modules it imports,
what its names stand for (Python) and whether it passes other modules' names on.

Impact questions (``changed``'s dependents and covering tests) ask this of hundreds of
files per call; the content record keeps it for Python files beside their stored body
(``reconcile.nodes.content_record``), computed from that same bounded body, so a reader
gets the answer a read of the body would give without reading or parsing it.

- ``imports``: ``(module, names)`` in source order. Python: ``from M import a, b`` is
  ``(M, (a, b))`` as written (``M`` may be relative: ``..pkg``), ``import a.b, c`` is
  ``(a.b, None)`` then ``(c, None)``. Other languages: ``(specifier, None)`` of
  ``imports_of``. Unresolved: which file a module is depends on the whole store.
- ``bindings``: ``(name, qualified spelling)`` sorted, ``bindings_of`` (Python only).
- ``reexports``: the text re-exports another module's names (``export * from``,
  ``export {…} from``, Rust's ``pub use``), as a JavaScript package's barrels do.

Invariants: a pure function of a path and its text; never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from repoctx.extract.languages.python import bindings_of
from repoctx.extract.path_language import language_of
from repoctx.extract.registry import imports_of

_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*)", re.M)
_ITEM = re.compile(r"[(\s]*(\w+)")  # the imported name of ``name`` / ``name as alias``
_REEXPORT = re.compile(r"(?m)^[ \t]*(?:export[ \t]+(?:\*|\{[^}]*\})[^;\n]*?from[ \t]"
                       r"|pub[ \t]+use[ \t])")

Imported = tuple[str, "tuple[str, ...] | None"]
"""``(module as written, names of a Python ``from`` import, else None)``."""


@dataclass(frozen=True, slots=True)
class Links:
    """What one file's text says about other modules (module docstring)."""

    imports: tuple[Imported, ...] = ()
    bindings: tuple[tuple[str, str], ...] = ()
    reexports: bool = False

    def wire(self) -> tuple:
        """The stored value: ``(imports, bindings, reexports)``, tuples all through (as the
        record codec reads them back, so an unchanged value compares equal)."""
        return self.imports, self.bindings, self.reexports


def links_from_wire(value: Any) -> Links | None:
    """The ``Links`` of a stored ``wire`` value; None for a value of another shape."""
    try:
        imports, bindings, reexports = value
        return Links(
            tuple((str(module), None if names is None else tuple(map(str, names)))
                  for module, names in imports),
            tuple((str(name), str(spelling)) for name, spelling in bindings),
            bool(reexports))
    except (TypeError, ValueError):
        return None


def links_of(path: str, text: str) -> Links:
    """The ``Links`` of ``text``, the contents of ``path``."""
    bindings = bindings_of(path, text) if language_of(path) == "python" else {}
    return Links(imports_in(path, text), tuple(sorted(bindings.items())),
                 reexports_in(text))


def imports_in(path: str, text: str) -> tuple[Imported, ...]:
    """``Links.imports`` of ``text`` alone."""
    if language_of(path) != "python":
        return tuple((item.specifier, None) for item in imports_of(path, text))
    return _python_imports(text)


def reexports_in(text: str) -> bool:
    """``Links.reexports`` of ``text`` alone."""
    return _REEXPORT.search(text) is not None


def _python_imports(text: str) -> tuple[Imported, ...]:
    """``(module, names)`` of Python's import statements, in source order."""
    statements: list[tuple[int, list[Imported]]] = []
    for match in _FROM.finditer(text):
        names = tuple(m.group(1) for item in match.group(2).split(",")
                      if (m := _ITEM.match(item)))
        statements.append((match.start(), [(match.group(1), names)]))
    for match in _IMPORT.finditer(text):
        statements.append((match.start(),
                           [(m.strip(), None) for m in match.group(1).split(",")]))
    return tuple(entry for _, entries in sorted(statements, key=lambda item: item[0])
                 for entry in entries)
