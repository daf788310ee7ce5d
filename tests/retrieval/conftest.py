"""The small indexed repository the read-tool tests share (read-only per module)."""

from __future__ import annotations

import pytest

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
