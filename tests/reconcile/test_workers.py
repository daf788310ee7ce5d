"""reconcile/workers: the worker count, and workers that die with their starter."""

import os
import subprocess
import sys
import time

from repoctx.reconcile.workers import default_workers

_GRANDCHILD = ("import sys, time; from repoctx.reconcile.workers import die_with_parent; "
               "die_with_parent(int(sys.argv[1])); time.sleep(60)")
_STARTER = ("import os, subprocess, sys; "
            "p = subprocess.Popen([sys.executable, '-c', sys.argv[1], str(os.getpid())]); "
            "print(p.pid, flush=True); p.wait()")


def test_one_worker_per_usable_cpu():
    assert default_workers() >= 1
    if hasattr(os, "sched_getaffinity"):
        assert default_workers() == len(os.sched_getaffinity(0))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:  # a zombie (already dead, not yet reaped) is gone
        return fh.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_a_worker_dies_when_its_starter_is_killed():
    starter = subprocess.Popen([sys.executable, "-c", _STARTER, _GRANDCHILD],
                               stdout=subprocess.PIPE, text=True)
    worker = int(starter.stdout.readline())
    time.sleep(0.5)  # the worker has asked to die with its starter by now
    assert _alive(worker)
    starter.kill()
    starter.wait()
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(worker), "the worker outlived the process that started it"


def test_a_worker_whose_starter_is_already_gone_exits_at_once():
    started = time.monotonic()
    code = subprocess.run([sys.executable, "-c", _GRANDCHILD, "1"], timeout=30).returncode
    assert code == 1 and time.monotonic() - started < 20
