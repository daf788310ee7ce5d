"""The one Tuning value: frozen, its defaults are the ranking's, and a changed field
really changes a ranking."""

import dataclasses

import pytest

from repoctx.retrieval.bundle.file_class import TEST, weight
from repoctx.retrieval.priors import document_prior
from repoctx.retrieval.search.fusion import fuse, ordered
from repoctx.retrieval.search.rerank import RerankSignals
from repoctx.retrieval.tuning import TUNING, DocumentTuning, FusionTuning, Tuning
from tests.retrieval.search.test_hits import ws  # noqa: F401, F811 (the indexed search repo)


def test_the_default_is_a_fresh_tuning_and_every_field_has_a_reason():
    assert Tuning() == TUNING
    for stage in dataclasses.fields(Tuning):
        knobs = getattr(TUNING, stage.name)
        assert type(knobs).__doc__
        assert dataclasses.fields(knobs), stage.name


def test_defaults_match_the_ranking_constants():
    assert (TUNING.text.common_share, TUNING.candidates.bm25_common_share) == (0.05, 0.1)
    assert (TUNING.candidates.definitions_per_name, TUNING.bundle.expansions_per_name) == (3, 4)
    assert (TUNING.fusion.rrf_k, TUNING.fusion.guarded_k, TUNING.fusion.semantic_weight) == (
        60, 20, 0.3)
    assert TUNING.candidates.path_weight == 0.25
    assert TUNING.hits.text_weights == (4.0, 1.5, 2.0, 1.0)


def test_a_tuning_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        TUNING.fusion.rrf_k = 1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        TUNING.fusion = FusionTuning()  # type: ignore[misc]


def test_a_changed_tuning_changes_a_ranking():
    lists = [("a", 1.0, ["x", "y"]), ("b", 1.0, ["y", "z"])]
    assert fuse(lists)["y"].score == pytest.approx(1 / 62 + 1 / 61)
    assert fuse(lists, k=1)["y"].score == pytest.approx(1 / 3 + 1 / 2)
    signals = RerankSignals(1.0, 0.0, 0, 0.0)
    flat = dataclasses.replace(TUNING.rerank, coverage_weight=0.0)
    assert signals.factor() == pytest.approx(1.6) and signals.factor(flat) == 1.0
    louder = Tuning(documents=DocumentTuning(test_prior=0.9))
    assert document_prior("tests/test_cart.py", {"cart"}) == 0.5
    assert document_prior("tests/test_cart.py", {"cart"}, tuning=louder) == 0.9
    assert weight(TEST, False, False, False, tuning=louder) == 0.25
    assert [f.key for f in ordered(fuse(lists))] == ["y", "x", "z"]


def test_a_workspace_tuning_reaches_the_search_ranking(ws):  # noqa: F811
    from repoctx.retrieval.search.hits import search

    def paths(ws):
        hits = search(ws, "total price", k=20)["hits"]
        return list(dict.fromkeys(h["path"] for h in hits if h.get("path")))

    plain = paths(ws)
    assert plain.index("shop/cart.py") < plain.index("tests/test_cart.py")
    boosted = ws.view()
    boosted.tuning = Tuning(documents=DocumentTuning(test_prior=50.0))
    tuned = paths(boosted)
    assert tuned.index("tests/test_cart.py") < tuned.index("shop/cart.py")
    assert paths(ws) == plain  # the other workspace keeps its own tuning
