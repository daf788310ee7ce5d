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
    _kill_and_outlive(starter, int(starter.stdout.readline()))


def _kill_and_outlive(starter: subprocess.Popen, worker: int) -> None:
    """Kill ``starter`` once ``worker`` has asked to die with it; the worker must go."""
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


# A worker that is the child of a middle process (as a forkserver's workers are), and a
# starter that prints the middle's pid (the middle prints the worker's).
_WATCHER = ("import sys, time; from repoctx.reconcile.workers import die_with_starter; "
            "die_with_starter(int(sys.argv[1])); time.sleep(60)")
_MIDDLE = ("import subprocess, sys, time; "
           "p = subprocess.Popen([sys.executable, '-c', sys.argv[1], sys.argv[2]]); "
           "print(p.pid, flush=True); time.sleep(60)")
_STARTER_OF_MIDDLE = (
    "import os, subprocess, sys; "
    "p = subprocess.Popen([sys.executable, '-c', sys.argv[1], sys.argv[2], str(os.getpid())]); "
    "print(p.pid, flush=True); p.wait()")


def test_a_worker_started_through_a_server_dies_with_its_starter():
    starter = subprocess.Popen([sys.executable, "-c", _STARTER_OF_MIDDLE, _MIDDLE, _WATCHER],
                               stdout=subprocess.PIPE, text=True)
    middle, worker = int(starter.stdout.readline()), int(starter.stdout.readline())
    try:
        _kill_and_outlive(starter, worker)
        assert _alive(middle)  # its own parent lives on: the starter's death ended it
    finally:
        os.kill(middle, 9)


def test_a_worker_whose_starter_is_already_gone_exits_at_once_through_a_server():
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", _WATCHER, str(gone.pid)], timeout=30)
    assert done.returncode == 1
    assert time.monotonic() - started < 20
