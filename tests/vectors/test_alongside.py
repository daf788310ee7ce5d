"""The back-fill in its own process: same result as in process, failures reported."""

import os

from repoctx.vectors import alongside, backfill, space_of
from repoctx.vectors.embedders.static import CACHE_ENV, StaticEmbedder
from repoctx.vectors.records import metadata_record as mr

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
    seen = _niceness_while_running(running.process)
    report = running.wait()
    assert seen and set(seen) == {os.nice(0)}  # never starved below the command waiting
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


def test_a_cold_index_killed_while_its_child_embeds_resumes(tmp_path, monkeypatch):
    """`repoctx index --embedder static` of a new store (the child embeds beside the
    export), SIGKILLed once vectors land: the child dies with it, and the next run ends
    where an uninterrupted run ends, embedding only what was left."""
    import json
    import signal
    import subprocess
    import sys
    import time

    from repoctx import open_store
    from tests.reconcile.helpers import generated_repo

    monkeypatch.setenv("REPOCTX_MODEL_DIR", str(build(tmp_path / "tiny")))
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    root = tmp_path / "repo"
    generated_repo(root, 300)
    cli = [sys.executable, "-m", "repoctx", "index", str(root), "--repo-id", "demo",
           "--json", "--embedder", "static"]

    def rows(name):
        with open_store(root, repo_id="demo", store_dir=tmp_path / name) as s, \
                s.snapshot() as snap:
            return sum(1 for _ in snap.scan("repo/demo/vec/"))

    clean = json.loads(subprocess.run([*cli, "--store", str(tmp_path / "clean")], check=True,
                                      capture_output=True, cwd=ROOT).stdout)["vectors"]
    proc = subprocess.Popen([*cli, "--store", str(tmp_path / "killed")], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if (tmp_path / "killed").is_dir() and rows("killed") > 0:
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.01)
    assert proc.wait() == -signal.SIGKILL, "the index ended before it could be killed"
    time.sleep(1.0)
    partial = rows("killed")
    time.sleep(1.0)
    assert rows("killed") == partial < rows("clean")  # no orphaned child writes on
    resumed = json.loads(subprocess.run([*cli, "--store", str(tmp_path / "killed")],
                                        check=True, capture_output=True,
                                        cwd=ROOT).stdout)["vectors"]
    assert resumed["error"] is None and resumed["remaining"] == 0
    assert 0 < resumed["embedded"] < clean["embedded"]
    assert rows("killed") == rows("clean")


ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def _niceness_while_running(process) -> list[int]:
    """The niceness of ``process``, sampled every 10 ms until it exits."""
    import time

    seen = []
    while process.poll() is None:
        try:
            seen.append(os.getpriority(os.PRIO_PROCESS, process.pid))
        except OSError:
            break
        time.sleep(0.01)
    return seen
