"""lazy: package exports imported on first read, as an eager ``__init__`` would bind them."""

import ast
import importlib
import sys
import textwrap
from pathlib import Path

import pytest

from repoctx.lazy import LazyPackage, export_lazily
from tests.conftest import loaded_by


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A throwaway package ``lazypkg`` whose ``walk`` is both a function and a module."""
    root = tmp_path / "lazypkg"
    root.mkdir()
    (root / "__init__.py").write_text(textwrap.dedent('''
        from repoctx.lazy import export_lazily
        __all__ = ["LIMIT", "helper", "walk"]
        export_lazily(__name__, {".walk": ("walk",), ".limits": ("LIMIT",)},
                      modules=("helper",))
    '''))
    (root / "walk.py").write_text("def walk():\n    return 'walked'\n")
    (root / "limits.py").write_text("LIMIT = 7\n")
    (root / "helper.py").write_text("NAME = 'helper module'\n")
    (root / "user.py").write_text("from .walk import walk\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    for name in [m for m in sys.modules if m == "lazypkg" or m.startswith("lazypkg.")]:
        del sys.modules[name]


def test_a_name_is_imported_only_when_read(package):
    import lazypkg

    assert isinstance(lazypkg, LazyPackage)
    assert "lazypkg.limits" not in sys.modules
    assert lazypkg.LIMIT == 7
    assert "lazypkg.limits" in sys.modules


def test_from_import_and_submodules_exported_as_themselves(package):
    from lazypkg import LIMIT, helper

    assert LIMIT == 7 and helper.NAME == "helper module"


def test_a_submodule_imported_first_does_not_hide_the_export_of_its_name(package):
    import lazypkg.user  # imports lazypkg.walk, which the import system binds on lazypkg

    assert lazypkg.walk() == "walked"
    from lazypkg import walk

    assert callable(walk) and walk() == "walked"


def test_an_unknown_name_is_an_attribute_error(package):
    import lazypkg

    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = lazypkg.nothing
    assert not hasattr(lazypkg, "nothing")
    assert {"LIMIT", "helper", "walk"} <= set(dir(lazypkg))


def test_export_lazily_turns_a_module_lazy(package):
    import lazypkg.limits as limits

    export_lazily("lazypkg.limits", {})
    assert isinstance(limits, LazyPackage) and limits.LIMIT == 7


def test_importing_the_cli_imports_no_store_and_no_heavy_library():
    """``repoctx --version`` must start fast: nothing heavy at import."""
    heavy = ("mcp", "numpy", "tiktoken", "lmdb", "pycrdt", "rapidfuzz", "tree_sitter",
             "sqlite3", "tqdm", "repoctx.store", "repoctx.tools.registry", "uvicorn",
             "repoctx.sync.protocol")
    assert loaded_by("import repoctx.cli", heavy) == []


def test_listing_the_tools_imports_neither_the_mcp_sdk_nor_numpy():
    """``repoctx call`` of one tool lists the registry: no MCP SDK, no numpy, no handlers."""
    assert loaded_by("from repoctx.tools import tools; tools()", (
        "mcp", "numpy", "rapidfuzz", "repoctx.retrieval.bundle.context",
        "repoctx.retrieval.search.hits",
    )) == []


ROOT = Path(__file__).resolve().parents[1]
LAZY_INITS = sorted(p for p in (ROOT / "repoctx").rglob("__init__.py")
                    if "export_lazily(" in p.read_text())


@pytest.mark.parametrize("init", LAZY_INITS, ids=lambda p: p.parent.name)
def test_a_lazy_package_lists_each_export_alike_in_all_its_map_and_its_typing_imports(init):
    """Each name is written three times (``__all__``, ``export_lazily``, ``TYPE_CHECKING``);
    a name missing from one would be unexported, unimportable or unseen by type checkers."""
    package = importlib.import_module(".".join(init.parent.relative_to(ROOT).parts))
    typed = {alias.asname or alias.name
             for node in ast.walk(ast.parse(init.read_text()))
             if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"
             for found in ast.walk(node) if isinstance(found, ast.ImportFrom)
             for alias in found.names}
    assert set(package.__all__) == set(package.__dict__["_lazy_exports"]) == typed
