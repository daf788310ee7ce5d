"""SIGKILL a real ``repoctx index`` at random moments: the next pass must converge to
exactly what a clean single pass over the same files produces."""

import random
import signal
import subprocess
import sys
import time

from repoctx import open_store
from repoctx.reconcile import PassOptions, reconcile_pass

from .helpers import generated_repo, tree_values

TRIALS = 12
FILES = 1000
"""Enough for a pass of a few seconds: kills land in every phase, not only at start-up."""


def start_index(root, store_dir):
    return subprocess.Popen(
        [sys.executable, "-m", "repoctx", "index", str(root), "--store", str(store_dir),
         "--repo-id", "demo", "--json"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def test_killed_passes_resume_to_the_clean_result(tmp_path):
    root = tmp_path / "gen"
    generated_repo(root, FILES)
    started = time.perf_counter()
    clean_run = start_index(root, tmp_path / "clean")
    assert clean_run.wait(300) == 0, clean_run.stderr.read()
    duration = time.perf_counter() - started
    with open_store(root, repo_id="demo", store_dir=tmp_path / "clean") as store:
        clean = tree_values(store)
    assert len(clean["repo-context-symbol"]) > 3 * FILES

    rng = random.Random(20261130)
    outcomes = []
    for trial in range(TRIALS):
        store_dir = tmp_path / f"trial{trial}"
        for _ in range(1 + trial % 2):  # odd trials are killed twice before resuming
            proc, began = start_index(root, store_dir), time.perf_counter()
            try:
                outcomes.append(proc.wait(rng.uniform(0.05, 0.9) * duration))
                # it finished first: later runs (a warm page cache, a quieter machine)
                # are as fast as this one, so their kills are drawn within its time
                duration = min(duration, time.perf_counter() - began)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                outcomes.append(proc.wait())
        with open_store(root, repo_id="demo", store_dir=store_dir) as store:
            reconcile_pass(store, root, PassOptions(workers=1))
            assert tree_values(store) == clean, f"trial {trial} did not converge"
            again = reconcile_pass(store, root, PassOptions(workers=1))
            assert again.records_written == 0, f"trial {trial} kept rewriting"
    assert outcomes.count(-signal.SIGKILL) >= TRIALS  # most runs really died midway
