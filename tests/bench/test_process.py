"""bench/_process: a real command sampled from outside (memory peak, CPU, output, exit)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _process import run_sampled  # noqa: E402

_HOLD = ("import sys, time\n"
         "block = bytearray(64 << 20)\n"  # 64 MiB touched and held while sampled
         "for i in range(0, len(block), 4096): block[i] = 1\n"
         "time.sleep(0.4)\n"
         "print('out'); print('err' * 50000, file=sys.stderr)\n"
         "sys.exit(3)\n")


def test_a_command_holding_64_mib_is_seen_holding_it_and_its_output_and_exit_are_kept():
    done = run_sampled([sys.executable, "-c", _HOLD])
    assert done.returncode == 3
    assert done.out == b"out\n" and done.err == b"err" * 50000 + b"\n"
    assert done.peaks["pss"] >= 60 * 1024 and done.maxrss_kib >= 60 * 1024
    assert done.wall >= 0.4 and done.processes == 1


def test_the_memory_of_a_child_process_counts_in_the_tree():
    child = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {_HOLD!r}])"
    done = run_sampled([sys.executable, "-c", child])
    assert done.returncode == 0  # the parent's own exit, whatever its child's
    assert done.processes == 2 and done.peaks["pss"] >= 60 * 1024
