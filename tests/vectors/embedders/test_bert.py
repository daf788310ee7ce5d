"""The numpy BERT encoder: safetensors, WordPiece, the forward pass (tiny model; the
packaged all-MiniLM-L6-v2 too where it is installed)."""

import numpy as np
import pytest

from repoctx.errors import EmbedderError
from repoctx.vectors.embedders.bert import Bert, WordPiece, read_safetensors
from repoctx.vectors.embedders.minilm import model_directory
from tests.vectors.tiny_model import build, write_safetensors


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return Bert(build(tmp_path_factory.mktemp("tiny")))


def test_safetensors_round_trip(tmp_path):
    tensors = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.ones(5, np.float32)}
    write_safetensors(tmp_path / "w.safetensors", tensors)
    back = read_safetensors(tmp_path / "w.safetensors")
    assert back.keys() == tensors.keys()
    assert all(np.array_equal(back[k], v) for k, v in tensors.items())


def test_unreadable_weights_are_an_embedder_error(tmp_path):
    (tmp_path / "w.safetensors").write_bytes(b"\xff" * 4)
    with pytest.raises(EmbedderError):
        read_safetensors(tmp_path / "w.safetensors")


def test_wordpiece_splits_like_bert():
    tok = WordPiece(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "get", "_", "query", "##set",
                     "naive", "cafe", "a", "##b"])
    pieces = [tok.pieces[i] for i in tok.ids("get_QuerySet naïve Café!")]
    assert pieces == ["get", "_", "query", "##set", "naive", "cafe", "[UNK]"]
    assert tok.ids("zzz") == [tok.unk] and tok.ids("a" * 101) == [tok.unk]
    assert len(tok.ids("a " * 1000, limit=10)) == 10


def test_padding_does_not_change_a_texts_vector(tiny):
    alone = tiny.encode(["user session cache"])
    batched = tiny.encode(["user session cache", "the database connection of the user "
                           "request and the response of the server " * 3])
    assert np.allclose(alone[0], batched[0], atol=1e-5)
    assert not np.allclose(batched[0], batched[1], atol=1e-3)


def test_a_directory_without_a_config_is_an_embedder_error(tmp_path):
    with pytest.raises(EmbedderError):
        Bert(tmp_path)


def test_the_packaged_minilm_ranks_by_meaning():
    try:
        directory = model_directory()
    except EmbedderError:
        directory = None
    if directory is None or not (directory / "config.json").is_file():
        pytest.skip("no all-MiniLM-L6-v2 weights installed (the tiny model covers the code)")
    bert = Bert(directory)
    rows = bert.encode(["how long do refunds take", "refund window of thirty days",
                        "tree-sitter grammar for python"])
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    assert rows[0] @ rows[1] > rows[0] @ rows[2] + 0.2
