"""Fixtures of the extract tests; `sample/` holds fixture sources, never tests to collect."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

collect_ignore = ["sample"]

SAMPLE = Path(__file__).with_name("sample")


@pytest.fixture(scope="session")
def ast_oracle() -> ModuleType:
    """The `ast_oracle` helper, loaded by path so it works under any import mode."""
    location = Path(__file__).with_name("ast_oracle.py")
    spec = importlib.util.spec_from_file_location("ast_oracle", location)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ast_oracle"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def sample_sources() -> list[tuple[str, str]]:
    """(path relative to `sample/`, text) of every sample source, bytes decoded as the
    reconcile will decode them."""
    files = sorted(p for p in SAMPLE.rglob("*") if p.suffix in (".py", ".pyi"))
    return [(p.relative_to(SAMPLE).as_posix(), p.read_bytes().decode("utf-8", "replace"))
            for p in files]
