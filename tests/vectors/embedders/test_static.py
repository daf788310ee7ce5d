"""The static embedder: distilled from a model directory, cached once, fast to apply."""

import subprocess
import sys

import numpy as np
import pytest

from repoctx.errors import EmbedderError
from repoctx.vectors import space_of
from repoctx.vectors.embedders.bert import Bert
from repoctx.vectors.embedders.static import (
    CACHE_ENV,
    StaticEmbedder,
    cache_dir,
    cached_table,
    distil,
    mapped_table,
    reduce,
)
from tests.vectors.tiny_model import HIDDEN, build

ROOT = __import__("pathlib").Path(__file__).resolve().parents[3]


@pytest.fixture
def model(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return build(tmp_path / "tiny")


def test_the_table_is_centred_rotated_and_weighted():
    rng = np.random.default_rng(1)
    scales = np.linspace(4.0, 0.5, 16)
    raw = (rng.normal(size=(500, 16)) * scales @ _rotation(rng, 16) + 3.0).astype(np.float32)
    plain = reduce(raw, 8, None)
    assert plain.shape == (500, 8) and abs(plain.mean()) < 1e-4  # centred
    assert np.all(np.diff(plain.var(axis=0)) < 0)  # principal axes, largest first
    weighted = reduce(raw, 8, 1e-3)
    ratio = np.linalg.norm(weighted, axis=1) / np.linalg.norm(plain, axis=1)
    assert ratio[0] < ratio[-1] < 1.0  # the frequent first pieces count least
    assert np.array_equal(reduce(raw, 16, None, pca=False), raw)


def _rotation(rng, n):
    q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    return q


def test_embedding_is_normalised_and_follows_the_words(model):
    emb = StaticEmbedder(model)
    rows = emb.embed(["user session cache", "the user session", "graph node edge", "@@@ ~~~"])
    assert rows.shape == (4, HIDDEN) and emb.dim == HIDDEN  # capped at the hidden size
    assert np.allclose(np.linalg.norm(rows[:3], axis=1), 1, atol=1e-5)
    assert rows[0] @ rows[1] > rows[0] @ rows[2]
    assert emb.embed([]).shape == (0, HIDDEN)
    assert len(space_of(emb)) == 16 and emb.model.endswith(f"/{HIDDEN}")


def test_a_text_is_the_normalised_sum_of_its_pieces_repeats_included(model):
    emb = StaticEmbedder(model)
    text = "user session user cache_user session, Session!"
    table, tok = emb._load()
    ids = tok.ids(text, limit=1 << 30)
    assert len(ids) > len(set(ids))  # repeated words: each occurrence counts
    want = table[ids].sum(axis=0)
    got = emb.embed([text])[0]
    assert np.allclose(got, want / np.linalg.norm(want), atol=1e-6)


def test_the_table_is_distilled_once_then_read_from_the_cache(model):
    first = cached_table(model, HIDDEN)
    files = list(cache_dir().glob("static-*.npy"))
    assert len(files) == 1 and not list(cache_dir().glob("*.part"))
    stamp = files[0].stat().st_mtime_ns
    again = cached_table(model, HIDDEN)
    assert np.array_equal(first, again) and files[0].stat().st_mtime_ns == stamp
    assert np.allclose(first, distil(Bert(model), HIDDEN), atol=1e-2)  # float16 on disk


def test_the_mapped_table_is_the_cached_one_as_float32_written_once(model):
    mapped = mapped_table(model, HIDDEN)
    (path,) = cache_dir().glob("static-*.f32")
    assert isinstance(mapped, np.memmap) and mapped.dtype == np.float32
    assert np.array_equal(mapped, cached_table(model, HIDDEN))
    stamp = path.stat().st_mtime_ns
    assert np.array_equal(mapped_table(model, HIDDEN), mapped)
    assert path.stat().st_mtime_ns == stamp
    damaged = path.with_name("damaged")  # a new inode: the mapped one stays readable
    damaged.write_bytes(b"not a table")
    damaged.replace(path)  # damaged: written again from the cached table
    assert np.array_equal(mapped_table(model, HIDDEN), mapped)
    assert not list(cache_dir().glob("*.part"))


def test_two_processes_distil_into_one_file(model, tmp_path):
    code = ("import sys; from pathlib import Path; from repoctx.vectors.embedders.static import "
            "cached_table; print(cached_table(Path(sys.argv[1]), 16).sum())")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(model)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    sums = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs) and sums[0] == sums[1]
    assert len(list(cache_dir().glob("static-*-d16.npy"))) == 1


def test_a_damaged_cache_names_the_file_to_delete(model):
    cached_table(model, HIDDEN)
    (path,) = cache_dir().glob("static-*.npy")
    path.write_bytes(b"not a table")
    with pytest.raises(EmbedderError, match="delete it"):
        cached_table(model, HIDDEN)


def test_the_cache_goes_where_the_environment_says(monkeypatch, tmp_path):
    monkeypatch.delenv(CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "repoctx"
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"


def _vector_rows(root, store_dir):
    from repoctx import open_store

    with open_store(root, repo_id="demo", store_dir=store_dir) as store, \
            store.snapshot() as snap:
        return sum(1 for _ in snap.scan("repo/demo/vec/"))


def test_a_killed_index_that_embeds_resumes_where_it_stopped(model, tmp_path, monkeypatch):
    """`repoctx index --embedder static` SIGKILLed inside its embed phase: the next run
    embeds only what is left and ends where an uninterrupted run ends."""
    import json
    import signal
    import time

    from tests.reconcile.helpers import generated_repo

    monkeypatch.setenv("REPOCTX_MODEL_DIR", str(model))
    root = tmp_path / "repo"
    generated_repo(root, 300)
    cli = [sys.executable, "-m", "repoctx", "index", str(root), "--repo-id", "demo",
           "--no-export", "--json"]
    for name in ("clean", "killed"):
        subprocess.run([*cli, "--store", str(tmp_path / name), "--embedder", "none"],
                       check=True, capture_output=True, cwd=ROOT)
    clean = json.loads(subprocess.run([*cli, "--store", str(tmp_path / "clean"),
                                       "--embedder", "static"], check=True,
                                      capture_output=True, cwd=ROOT).stdout)["vectors"]
    proc = subprocess.Popen([*cli, "--store", str(tmp_path / "killed"), "--embedder",
                             "static"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if _vector_rows(root, tmp_path / "killed") > 0:  # the first batch committed
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.01)
    assert proc.wait() == -signal.SIGKILL, "the embed phase ended before it could be killed"
    resumed = json.loads(subprocess.run([*cli, "--store", str(tmp_path / "killed")],
                                        check=True, capture_output=True,
                                        cwd=ROOT).stdout)["vectors"]
    assert resumed["embedder"] == "static" and resumed["error"] is None
    assert 0 < resumed["embedded"] < clean["embedded"]  # resumed, not restarted
    assert resumed["remaining"] == 0
    assert _vector_rows(root, tmp_path / "killed") == _vector_rows(root, tmp_path / "clean")
