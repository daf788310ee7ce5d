"""Fixtures for the vector tests: a small indexed repository and the test embedder."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from repoctx import open_store
from repoctx.reconcile import PassOptions, reconcile_pass
from tests.reconcile.helpers import generated_repo, write

from .hashed_embedder import HashedBagTestEmbedder

README = "# Payments\n\nRefunds are accepted within thirty days of purchase.\n"


def make_repo(root: Path, n: int = 40) -> None:
    generated_repo(root, n)
    write(root, {"README.md": README, "empty.txt": "   \n"})


@pytest.fixture
def embedder() -> HashedBagTestEmbedder:
    return HashedBagTestEmbedder()


@pytest.fixture
def indexed(tmp_path: Path):
    root = tmp_path / "repo"
    make_repo(root)
    store = open_store(root, repo_id="demo", replica_id="r-a", store_dir=tmp_path / "store")
    reconcile_pass(store, root, PassOptions(workers=1))
    yield SimpleNamespace(root=root, store=store, tmp=tmp_path)
    store.close()


def ws(store) -> SimpleNamespace:
    """A stand-in for the retrieval workspace (all ``semantic_hits`` needs is ``store``)."""
    return SimpleNamespace(store=store)
