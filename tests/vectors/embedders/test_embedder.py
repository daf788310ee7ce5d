import numpy as np
import pytest

from repoctx.vectors import NONE, EmbedderError, is_none, l2_normalise, space_fingerprint
from repoctx.vectors.embedders.embedder import float32_bytes, from_bytes, space_of
from tests.vectors.hashed_embedder import HashedBagTestEmbedder


def test_the_space_is_model_dimension_and_normalisation():
    base = space_fingerprint("m", 384, "l2")
    assert len(base) == 16 and base == space_fingerprint("m", 384, "l2")
    assert len({base, space_fingerprint("m2", 384, "l2"), space_fingerprint("m", 128, "l2"),
                space_fingerprint("m", 384, "none")}) == 4
    assert space_of(HashedBagTestEmbedder()) == space_fingerprint("test/hashed-bag", 64, "l2")


def test_none_is_the_default_and_embeds_nothing():
    assert is_none(None) and is_none(NONE)
    assert not is_none(HashedBagTestEmbedder())
    with pytest.raises(EmbedderError):
        NONE.embed(["x"])


def test_normalised_rows_and_little_endian_bytes():
    rows = l2_normalise(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert rows.dtype == np.float32 and np.allclose(rows[0], [0.6, 0.8]) and not rows[1].any()
    data = float32_bytes(rows[0])
    assert data == np.array([0.6, 0.8], dtype="<f4").tobytes()
    assert np.array_equal(from_bytes(data), rows[0])
