"""A package whose symbols trip a section-based index: a class whose head is glued to its
first method, a method split over several sections, a class written in a docstring,
``@overload`` stubs and private / old twins of a name; relative imports at two levels."""

from __future__ import annotations

import ast
from pathlib import Path

from repoctx import open_store
from repoctx.retrieval import Workspace
from tests.reconcile.helpers import write

from .small_repo import index


def _long_body() -> str:
    blocks = []
    for block in range(12):
        lines = [f"        step_{block}_{i} = app.config.get('STEP_{block}_{i}', {i})"
                 for i in range(5)]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


BP = f'''"""Blueprints."""

from typing import overload


class Blueprint:
    def __init__(self, name):
        self.name = name

    def register(self, app):
        """Record this blueprint on ``app``."""
{_long_body()}
        return app

    def register_blueprint(self, other):
        return other


class Registry:
    """Holds things.

    Example::

        class Plugin(Registry):
            pass
    """

    def add(self, item):
        return item


@overload
def convert(x: int) -> int: ...
@overload
def convert(x: str) -> str: ...
def convert(x):
    """Convert for real."""
    return x


def _convert(x):
    return convert(x)


def convert_old(x):
    return convert(x)
'''

MOD = '''from .. import bp
from ..bp import Blueprint, convert as conv
from . import helpers
from .helpers import (
    tidy,
    neat as n,
)
import os


def build():
    return Blueprint(conv(tidy(n())))
'''

TESTS = "from pkg.bp import Blueprint\n\n\n" + "\n\n".join(
    f"def test_blueprint_{i}():\n    assert Blueprint('x{i}')" for i in range(6)) + "\n"

FILES = {
    "pkg/__init__.py": "from . import bp, VERSION_NAME\n\nVERSION_NAME = '1'\n",
    "pkg/bp.py": BP,
    "pkg/sub/__init__.py": "",
    "pkg/sub/mod.py": MOD,
    "pkg/sub/helpers.py": "def tidy(x=None):\n    return x\n\n\ndef neat():\n    return 1\n",
    "tests/test_bp.py": TESTS,
}


def span(source: str, qualname: str) -> tuple[int, int]:
    """``(lineno, end_lineno)`` of the last definition ``qualname`` in ``source`` (ast)."""
    found: dict[str, tuple[int, int]] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                found[name] = (child.lineno, child.end_lineno or child.lineno)
                walk(child, name + ".")

    walk(ast.parse(source), "")
    return found[qualname]


def build(root: Path) -> Workspace:
    """Write, index and export the package; the open workspace (close it)."""
    write(root, FILES)
    store = open_store(root, repo_id="pkg", replica_id="r1")
    return Workspace(store, root.resolve(), index(store, root))
