"""extract/modules — the dotted Python module a source path defines.

Invariants: pure; no I/O; the result depends on the path text alone, so a `.py`
file and its `.pyi` stub always map to the same module.
"""

from __future__ import annotations

from typing import Final

_SOURCE_SUFFIXES: Final = (".pyi", ".pyw", ".py")
_LAYOUT_DIRS: Final = frozenset({"src"})


def module_name(path: str) -> str:
    """Return the dotted module that the Python file at relative `path` defines.

    `django/db/models/base.py` → `django.db.models.base`; `pkg/__init__.py` → `pkg`;
    `x.pyi` → `x`. A leading `src/` layout directory is not part of the module, and
    `./` segments are ignored. A top-level `__init__.py` names the empty module
    `''`; `src/__init__.py` (where `src` is itself the package) names `src`.
    """
    parts = [part for part in path.replace("\\", "/").split("/") if part not in ("", ".")]
    if not parts:
        return ""
    parts[-1] = _strip_suffix(parts[-1])
    if parts[-1] == "__init__":
        parts.pop()
    if len(parts) > 1 and parts[0] in _LAYOUT_DIRS:
        parts.pop(0)
    return ".".join(parts)


def _strip_suffix(file_name: str) -> str:
    for suffix in _SOURCE_SUFFIXES:
        if file_name.endswith(suffix):
            return file_name[: -len(suffix)]
    return file_name


def qualify(module: str, qualname: str) -> str:
    """Join a module and a qualified name into a fully-qualified name."""
    return f"{module}.{qualname}" if module else qualname
