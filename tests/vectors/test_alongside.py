"""The back-fill in its own process: same result as in process, failures reported."""

from repoctx.vectors import alongside, backfill, space_of
from repoctx.vectors import metadata_record as mr
from repoctx.vectors.static import CACHE_ENV, StaticEmbedder

from .tiny_model import build


def _vectors(store, space):
    with store.snapshot() as snap:
        return {key: mr.meta_of("", rec).address
                for key, rec in snap.scan(mr.space_prefix("demo", space))}


def test_a_spawned_backfill_writes_what_an_in_process_one_writes(indexed, tmp_path,
                                                                 monkeypatch):
    model = build(tmp_path / "tiny")
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("REPOCTX_MODEL_DIR", str(model))  # inherited by the spawned child
    store, root = indexed.store, indexed.root
    running = alongside.start(store, root, store.path, "demo", "static")
    report = running.wait()
    assert report.error is None and report.remaining == 0
    assert report.embedded > 50 and report.vectors == len(_vectors(store, report.space))
    here = StaticEmbedder(model)
    assert report.space == space_of(here)
    assert backfill(store, here).embedded == 0  # nothing left for this process to do


def test_a_child_that_fails_is_reported_not_raised(indexed, tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("REPOCTX_MODEL_DIR", str(tmp_path / "no-such-model"))
    running = alongside.start(indexed.store, indexed.root, indexed.store.path, "demo", "static")
    report = running.wait()
    assert report.error and "no-such-model" in report.error
    assert report.vectors == 0
