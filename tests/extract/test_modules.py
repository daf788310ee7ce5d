from __future__ import annotations

import pytest

from repoctx.extract import module_name
from repoctx.extract.modules import qualify


@pytest.mark.parametrize(("path", "module"), [
    ("django/db/models/base.py", "django.db.models.base"),
    ("pkg/__init__.py", "pkg"),
    ("pkg/__init__.pyi", "pkg"),
    ("x.pyi", "x"),
    ("x.py", "x"),
    ("src/pkg/mod.py", "pkg.mod"),
    ("src/pkg/__init__.py", "pkg"),
    ("src/__init__.py", "src"),
    ("lib/src/pkg.py", "lib.src.pkg"),
    ("./pkg//mod.py", "pkg.mod"),
    ("pkg\\win.py", "pkg.win"),
    ("__init__.py", ""),
    ("", ""),
])
def test_module_name(path: str, module: str) -> None:
    assert module_name(path) == module


def test_stub_and_module_agree() -> None:
    assert module_name("a/b/c.py") == module_name("a/b/c.pyi")


def test_qualify() -> None:
    assert qualify("pkg.mod", "Class.method") == "pkg.mod.Class.method"
    assert qualify("", "Class") == "Class"
