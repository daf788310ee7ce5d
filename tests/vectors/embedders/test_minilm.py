"""The real model where its weights are installed (through sentence-transformers when
``repoctx[embed]`` is installed, else numpy); the numpy path on the tiny model always."""

import numpy as np
import pytest

from repoctx.vectors import EmbedderError, MiniLmEmbedder, space_of
from repoctx.vectors.embedders.minilm import NumpyModel, load_model, model_directory
from tests.vectors.tiny_model import build


@pytest.fixture(scope="module")
def minilm():
    try:
        model_directory()
    except EmbedderError:
        pytest.skip("no all-MiniLM-L6-v2 weights package installed")
    return MiniLmEmbedder()


def test_real_embeddings_offline(minilm, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    rows = minilm.embed(["how long do refunds take", "refund window of thirty days",
                         "tree-sitter grammar for python"])
    assert rows.shape == (3, 384) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1, atol=1e-5)
    assert rows[0] @ rows[1] > rows[0] @ rows[2] + 0.2
    import os
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert minilm.embed([]).shape == (0, 384) and len(space_of(minilm)) == 16


def test_a_broken_model_directory_is_an_embedder_error(tmp_path):
    with pytest.raises(EmbedderError):
        load_model(tmp_path)


def test_the_numpy_path_needs_no_torch(tmp_path, monkeypatch):
    monkeypatch.setenv("REPOCTX_MODEL_DIR", str(build(tmp_path / "tiny")))
    embedder = MiniLmEmbedder()
    rows = embedder.embed(["user session", "graph node"])
    assert rows.shape == (2, 32)  # the tiny model's hidden size
    assert np.allclose(np.linalg.norm(rows, axis=1), 1, atol=1e-5)
    import importlib.util
    if importlib.util.find_spec("sentence_transformers") is None:
        assert isinstance(load_model(tmp_path / "tiny"), NumpyModel)


def test_a_model_dir_without_weights_is_an_embedder_error(tmp_path, monkeypatch):
    monkeypatch.setenv("REPOCTX_MODEL_DIR", str(tmp_path))
    with pytest.raises(EmbedderError, match="REPOCTX_MODEL_DIR"):
        model_directory()
