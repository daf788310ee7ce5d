"""The first ``repoctx index --embedder static`` on a machine distils the table in the
command itself, says so off a terminal and times it in ``--json``; later runs do not."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from repoctx.vectors.embedders.static import CACHE_ENV

from .tiny_model import build


def test_the_first_distillation_is_said_and_timed_and_only_once(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "cart.py").write_text("def total(items):\n    return sum(items)\n")
    env = {**os.environ, CACHE_ENV: str(tmp_path / "cache"),
           "REPOCTX_MODEL_DIR": str(build(tmp_path / "tiny"))}

    def index() -> tuple[dict, str]:
        done = subprocess.run([sys.executable, "-m", "repoctx", "index", str(root),
                               "--embedder", "static", "--json"],
                              capture_output=True, text=True, timeout=300, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout), done.stderr

    first, said = index()
    assert "distilling the static embedding table" in said  # stderr is not a terminal
    assert "distilled the static table in" in said
    assert first["seconds"]["distil"] > 0
    assert first["vectors"]["embedded"] > 0
    (root / "cart.py").write_text("def total(items):\n    return sum(items, 0)\n")
    again, said = index()
    assert "distil" not in again["seconds"] and "distil" not in said
