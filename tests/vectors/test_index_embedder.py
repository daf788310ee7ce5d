"""``repoctx index`` and its embedder, through real processes: keyword by default even
with the weights installed, ``--embedder static`` one flag away (and remembered); the
first static index on a machine distils the table in the command itself, says so off a
terminal and times it in ``--json``; later runs do not."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from repoctx.vectors.embedders.static import CACHE_ENV

from .tiny_model import build


def _indexer(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "cart.py").write_text("def total(items):\n    return sum(items)\n")
    env = {**os.environ, CACHE_ENV: str(tmp_path / "cache"),
           "REPOCTX_MODEL_DIR": str(build(tmp_path / "tiny"))}  # the weights are there
    env.pop("REPOCTX_DEFAULT_EMBEDDER", None)

    def index(*flags: str) -> tuple[dict, str]:
        done = subprocess.run([sys.executable, "-m", "repoctx", "index", str(root), *flags,
                               "--json"], capture_output=True, text=True, timeout=300, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout), done.stderr

    return root, index


def test_keyword_is_the_default_with_weights_installed_and_static_one_flag_away(tmp_path):
    root, index = _indexer(tmp_path)
    assert index()[0]["vectors"] is None
    assert index("--embedder", "static")[0]["vectors"]["embedded"] > 0
    (root / "cart.py").write_text("def total(items):\n    return sum(items, 0)\n")
    assert index()[0]["vectors"]["embedder"] == "static"  # the recorded choice is kept


def test_the_first_distillation_is_said_and_timed_and_only_once(tmp_path):
    root, index = _indexer(tmp_path)
    first, said = index("--embedder", "static")
    assert "distilling the static embedding table" in said  # stderr is not a terminal
    assert "distilled the static table in" in said
    assert first["seconds"]["distil"] > 0
    assert first["vectors"]["embedded"] > 0
    (root / "cart.py").write_text("def total(items):\n    return sum(items, 0)\n")
    again, said = index("--embedder", "static")
    assert "distil" not in again["seconds"] and "distil" not in said
