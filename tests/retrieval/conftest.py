"""The small indexed repositories the read-tool tests share (read-only per module)."""

from __future__ import annotations

import pytest

from tests.retrieval import context_repo, symbol_repo
from tests.retrieval.small_repo import build


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    ws = build(tmp_path_factory.mktemp("shop"))
    yield ws
    ws.close()


@pytest.fixture
def fresh_shop(tmp_path):
    """A workspace of its own, for tests that edit the working tree."""
    ws = build(tmp_path)
    yield ws
    ws.close()


@pytest.fixture(scope="module")
def cart_ws(tmp_path_factory):
    """The cart repository of ``context_repo``, indexed and exported (one per module)."""
    ws = context_repo.build(tmp_path_factory.mktemp("cart") / "repo")
    yield ws
    ws.close()


@pytest.fixture(scope="module")
def pkg_ws(tmp_path_factory):
    """``symbol_repo``'s package, indexed and exported (one per module)."""
    ws = symbol_repo.build(tmp_path_factory.mktemp("pkg"))
    yield ws
    ws.close()
