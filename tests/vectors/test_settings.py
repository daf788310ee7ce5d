import pytest

from repoctx.errors import ToolError
from repoctx.vectors import NONE, MiniLmEmbedder, choose, embedder_named, recorded


def test_only_none_and_minilm_are_selectable():
    assert embedder_named("none") is NONE
    assert isinstance(embedder_named("minilm"), MiniLmEmbedder)
    assert embedder_named("minilm") is embedder_named("minilm")  # built once
    with pytest.raises(ToolError):
        embedder_named("hashed-bag-test")


def test_the_choice_is_recorded_and_kept(store):
    assert choose(store) is NONE and recorded(store) is None
    assert choose(store, "minilm").name == "minilm"
    assert recorded(store)["name"] == "minilm" and len(recorded(store)["space"]) == 16
    assert choose(store).name == "minilm"  # a pass without --embedder keeps it
    assert choose(store, "none") is NONE and choose(store) is NONE
