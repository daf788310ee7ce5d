import pytest

from repoctx.errors import ToolError
from repoctx.vectors import NONE, MiniLmEmbedder, choose, embedder_named, recorded
from repoctx.vectors.embedders.settings import default_name
from repoctx.vectors.embedders.static import StaticEmbedder


def test_only_none_static_and_minilm_are_selectable():
    assert embedder_named("none") is NONE
    assert isinstance(embedder_named("minilm"), MiniLmEmbedder)
    assert isinstance(embedder_named("static"), StaticEmbedder)
    assert embedder_named("minilm") is embedder_named("minilm")  # built once
    with pytest.raises(ToolError):
        embedder_named("hashed-bag-test")


def test_the_default_is_keyword_even_with_weights_installed(monkeypatch, tmp_path):
    monkeypatch.delenv("REPOCTX_DEFAULT_EMBEDDER")
    monkeypatch.setenv("REPOCTX_MODEL_DIR", str(tmp_path))  # weights found
    assert default_name() == "none"
    monkeypatch.setenv("REPOCTX_DEFAULT_EMBEDDER", "minilm")
    assert default_name() == "minilm"
    monkeypatch.setenv("REPOCTX_DEFAULT_EMBEDDER", "bogus")
    with pytest.raises(ToolError):
        default_name()


def test_the_choice_is_recorded_and_kept(store):
    assert choose(store) is NONE and recorded(store) is None
    assert choose(store, "minilm").name == "minilm"
    assert recorded(store)["name"] == "minilm" and len(recorded(store)["space"]) == 16
    assert choose(store).name == "minilm"  # a pass without --embedder keeps it
    assert choose(store, "none") is NONE and choose(store) is NONE
