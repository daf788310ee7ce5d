"""cli/check: `repoctx check` and `repoctx repair` against damaged stores, through real
processes (the corruption acceptance test).

Before: after byte flips, tools answered and health said ok while records did not
decode, then every command died with a bare "not msgpack" and nothing could repair the
store; a truncated data.mdb killed every command by SIGBUS (exit 135) with no message.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from repoctx.maintenance import check_store
from repoctx.retrieval import EXPORT_NAME, open_workspace
from repoctx.tools import registry as tools
from tests.damage import derived_view, flip, make_repo

ROOT = Path(__file__).resolve().parents[2]
CASES = 50


def repoctx(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run the real `repoctx` command."""
    return subprocess.run([sys.executable, "-m", "repoctx", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """A generated repository, indexed, with three memory records; its store is kept
    aside as the golden copy every case starts from."""
    base = tmp_path_factory.mktemp("damage")
    repo = make_repo(base / "repo", packages=3, modules=4)
    assert repoctx("index", str(repo)).returncode == 0
    with open_workspace(repo) as ws:
        for n in range(3):
            tools.call(ws, "repocontext_remember",
                       {"topic": "widgets", "title": f"note {n}", "body": f"helper {n}"})
    golden = base / "golden"
    shutil.copytree(repo / ".repoctx", golden, ignore=shutil.ignore_patterns("*.lock"))
    return repo, golden


def copy_store(golden: Path, dest: Path) -> Path:
    shutil.copytree(golden, dest)
    return dest


def test_fifty_flipped_stores_are_each_reported_and_repaired(indexed, tmp_path):
    """Every case: check says damaged, or says clean and every record truly decodes;
    repair exits 0 with derived trees equal to the clean index's (tests/damage.py says
    what equal means), loses no memory record when nothing was damaged, and the store
    then checks clean.

    Not asserted: that a kept memory record equals the original. A flip inside a string
    (a body letter, a field name) leaves a record that decodes, and LMDB and the record
    format carry no checksum to tell it; a few cases in 50 keep such a record.
    """
    repo, golden = indexed
    worker = subprocess.run(
        [sys.executable, "-m", "tests.damage", str(repo), str(golden), str(tmp_path),
         str(CASES), "16"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert worker.returncode == 0, worker.stderr[-3000:]  # a signal death fails here
    results = [json.loads(line) for line in worker.stdout.splitlines()]
    assert len(results) == CASES
    for r in results:
        where = f"case {r['case']}: {r['checkOutput']}\n{r['repairOutput']}"
        if r["check"] == 0:
            assert r["truth"], "check said clean but a record does not decode: " + where
        else:
            assert r["check"] == 1 and r["checkOk"] is False, where
        assert r["repair"] == 0, where
        assert r["derivedEqual"], where
        assert r["after"] == 0, where
        if r["check"] == 0:  # nothing was damaged: nothing may be lost
            assert r["memoryKept"] == r["memoryAll"], where
    assert sum(r["check"] == 1 for r in results) >= CASES // 2  # the flips did hit


def test_a_truncated_data_file_is_a_clear_error_not_sigbus(indexed, tmp_path):
    repo, golden = indexed
    store = copy_store(golden, tmp_path / "store")
    data = store / "lmdb" / "data.mdb"
    os.truncate(data, data.stat().st_size // 2)
    for args in (["index", str(repo)], ["check", str(repo)]):
        done = repoctx(*args, "--store", str(store))
        assert done.returncode == 1, (args, done.returncode, done.stderr)
        assert str(data) in done.stderr + done.stdout and "truncated" in done.stderr + done.stdout
        assert "repoctx repair" in done.stderr + done.stdout
    called = repoctx("call", "repocontext_health", "{}", "--path", str(repo), "--store",
                     str(store))
    assert called.returncode == 1 and "truncated" in json.loads(called.stdout)["error"]["message"]
    repaired = repoctx("repair", str(repo), "--store", str(store), "--json")
    assert repaired.returncode == 0, repaired.stderr
    report = json.loads(repaired.stdout)
    assert any("truncated" in line for line in report["fileRescue"])
    assert derived_view(store / "lmdb") == derived_view(golden / "lmdb")
    assert check_store(store, store / EXPORT_NAME)["ok"] is True


def test_a_damaged_export_is_reported_by_check_and_health_and_rebuilt(indexed, tmp_path):
    repo, golden = indexed
    store = copy_store(golden, tmp_path / "store")
    export = store / "contextpull.sqlite"
    flip(export, 600, random.Random(3), start=4096)  # past the header: SQLite still opens
    checked = repoctx("check", str(repo), "--store", str(store), "--json")
    assert checked.returncode == 1
    answer = json.loads(checked.stdout)
    assert answer["store"]["ok"] is True and answer["export"]["ok"] is False
    assert answer["export"]["problems"]
    health = json.loads(repoctx("call", "repocontext_health", "{}", "--path", str(repo),
                                "--store", str(store)).stdout)
    assert health["ok"] is False and health["export"]["ok"] is False
    assert repoctx("repair", str(repo), "--store", str(store)).returncode == 0
    with open_workspace(repo, store_dir=store) as ws:
        assert tools.call(ws, "repocontext_health", {})["ok"] is True
