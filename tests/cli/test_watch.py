"""cli/watch: ``repoctx watch`` prints one line (or JSON object) per pass, ends with 0 on
SIGTERM, and refuses a read-only store."""

import json
import shutil
import signal
import subprocess
import sys
import time

import pytest

from tests.reconcile.helpers import write


def _lines(proc, count, limit=60.0):
    got = []
    deadline = time.monotonic() + limit
    while len(got) < count:
        assert time.monotonic() < deadline and proc.poll() is None, got
        got.append(proc.stdout.readline())
    return got


def test_watch_json_is_one_object_per_pass_and_sigterm_exits_0(tmp_path):
    root = tmp_path / "repo"
    write(root, {"a.py": "def a():\n    pass\n"})
    proc = subprocess.Popen([sys.executable, "-m", "repoctx", "watch", str(root), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = json.loads(_lines(proc, 1)[0])  # creates the store, as `repoctx index` does
        assert (first["pass"], first["changes"], first["ok"], first["added"]) == (1, 0, True, 1)
        write(root, {"b.py": "def b():\n    pass\n"})
        second = json.loads(_lines(proc, 1)[0])
        assert (second["pass"], second["added"], second["export"]["documents"]) == (2, 1, 2)
        assert second["changes"] >= 1
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0, proc.stderr.read()


def test_watch_prints_a_line_per_pass(tmp_path):
    root = tmp_path / "repo"
    write(root, {"a.py": "x = 1\n"})
    # a background job (``pytest &``) starts with SIGINT ignored, and a child keeps that,
    # as Python does: this one gets Ctrl-C's default, so the test does not depend on how
    # the suite was started
    proc = subprocess.Popen([sys.executable, "-m", "repoctx", "watch", "--repo", str(root)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_interruptible)
    try:
        line = _lines(proc, 1)[0]
        assert line.startswith("pass 1 (catching up): 1 added, 0 changed, 0 removed;")
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0


def _interruptible() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _can_unshare() -> bool:
    return shutil.which("unshare") is not None and subprocess.run(
        ["unshare", "-rm", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _can_unshare(), reason="needs user namespaces for a read-only mount")
def test_a_read_only_store_cannot_be_watched_and_serve_says_so_once(tmp_path):
    root = tmp_path / "repo"
    write(root, {"a.py": "def a():\n    pass\n"})
    assert subprocess.run([sys.executable, "-m", "repoctx", "index", str(root)],
                          capture_output=True).returncode == 0
    ro = f"mount --bind {root} {root} && mount -o remount,bind,ro {root}"
    watch = subprocess.run(["unshare", "-rm", "sh", "-c",
                            f"{ro} && exec {sys.executable} -m repoctx watch {root}"],
                           capture_output=True, text=True, timeout=60)
    assert watch.returncode == 1 and "read-only" in watch.stderr
    # serve: stdin closed at once, so it serves nothing and exits; it said why, once
    serve = subprocess.run(["unshare", "-rm", "sh", "-c",
                            f"{ro} && exec {sys.executable} -m repoctx serve --repo {root}"],
                           input="", capture_output=True, text=True, timeout=60)
    assert serve.stderr.count("read-only: not following the working tree") == 1, serve.stderr
