"""Memory test fixtures: a small repository on disk, indexed through the real reconcile."""

from __future__ import annotations

from pathlib import Path

import pytest

from repoctx import open_store
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.store import Store

APP = '''"""The app."""


class Model:
    """A model."""

    def save(self) -> None:
        validate(self)


def validate(obj):
    return obj
'''

NOW = 1_900_000_000_000
"""A fixed 'now' for tests that pin time (ms since the epoch, 2030)."""


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def index(store: Store, root: Path) -> None:
    reconcile_pass(store, root, PassOptions(workers=1))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {"app.py": APP, "README.md": "# Demo\n\nA demo repository.\n"})
    return root


@pytest.fixture
def indexed(repo: Path) -> Store:
    store = open_store(repo, repo_id="demo", replica_id="r-test")
    index(store, repo)
    yield store
    store.close()


def key(kind: str, rest: str) -> str:
    return f"repo/demo/{kind}/{rest}"
