"""lazy — package ``__init__`` modules whose exports are imported on first use.

A command such as ``repoctx --version`` must not pay for importing the store, numpy or
the MCP SDK. A package calls :func:`export_lazily` with the
submodule that defines each exported name; the name is imported the first time it is
read (``from pkg import name`` or ``pkg.name``) and kept, so later reads cost nothing.

The package behaves as if it had imported its names eagerly: an exported name that is
also a submodule's name (``retrieval.search.hits``, the function, beside
``retrieval/search/hits.py``) stays the exported object when that submodule is imported
later, as an eager ``from .search import search`` leaves it. Packages keep the eager
imports under ``if TYPE_CHECKING:`` so type checkers and import-linter see them.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

__all__ = ["LazyPackage", "export_lazily"]


class LazyPackage(ModuleType):
    """A package module that imports each exported name from its submodule when read."""

    _lazy_exports: dict[str, str]

    def __getattr__(self, name: str) -> Any:
        """Import ``name`` from the submodule that defines it (only called when missing)."""
        where = self.__dict__.get("_lazy_exports", {}).get(name)
        if where is None:  # not an export ("" is a submodule exported as itself)
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        submodule = importlib.import_module(where or f".{name}", self.__name__)
        value = getattr(submodule, name) if where else submodule
        ModuleType.__setattr__(self, name, value)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        """Bind ``name``; the import system binding a submodule never hides an export."""
        exported = self.__dict__.get("_lazy_exports", {})
        if exported.get(name) and isinstance(value, ModuleType):
            return  # the export of that name is an object of a submodule, not the submodule
        ModuleType.__setattr__(self, name, value)

    def __dir__(self) -> list[str]:
        """The exports (loaded or not), the submodules loaded and the module's dunders;
        not the names the ``__init__`` used to set itself up (``TYPE_CHECKING``...)."""
        prefix = f"{self.__name__}."
        loaded = {n for n, v in self.__dict__.items()
                  if (isinstance(v, ModuleType) and v.__name__.startswith(prefix))
                  or (n.startswith("__") and n.endswith("__"))}
        return sorted(loaded | set(self.__dict__.get("_lazy_exports", {})))


def export_lazily(package: str, exports: dict[str, tuple[str, ...]],
                  modules: tuple[str, ...] = ()) -> None:
    """Make ``package`` (a ``__name__``) import each exported name on first read.

    ``exports`` maps a relative submodule to the names it defines, as the eager import
    would (``{".store": ("Store", "open_store")}``); ``modules`` names submodules
    exported as themselves (``vectors.chunks``).
    """
    names = {name: where for where, defined in exports.items() for name in defined}
    module = sys.modules[package]
    module.__class__ = LazyPackage
    module.__dict__["_lazy_exports"] = {**dict.fromkeys(modules, ""), **names}
