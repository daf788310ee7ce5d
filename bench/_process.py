"""Shared by the benchmarks: a command run as a fresh process and sampled from outside.

``run_sampled`` starts a command, and while it runs a sampler reads ``/proc`` every 50 ms
for the command and every descendant: the summed PSS, RSS, anonymous and file-backed
memory (peaks, each with the second it was reached) and each process's own CPU seconds.
``wait4`` adds the command's ``ru_maxrss`` and the CPU of the children it reaped. The same
figures for repoctx and for the peers it is compared with (``bench/e2e.py``).
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path


def tree_of(root: int) -> list[int]:
    """``root`` and every live descendant (by the parent pid in ``/proc/PID/stat``)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                ppid = int(handle.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        parents.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(parents.get(pid, ()))
    return found


_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int], seen: dict[int, float]) -> None:
    """Record in ``seen`` each live pid's own user + system seconds (``/proc/PID/stat``
    fields 14 and 15), the latest sample kept: summed over every process of the command
    tree, forkserver workers included (``wait4`` counts only the children a process
    reaped, and a forkserver's workers are not the command's)."""
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        seen[pid] = (int(fields[11]) + int(fields[12])) / _TICKS


_FIELDS = {b"Pss:": "pss", b"Rss:": "rss", b"Pss_Anon:": "anon", b"Pss_File:": "file"}


def memory(pids: list[int]) -> dict[str, int]:
    """Summed PSS, RSS, anonymous PSS and file-backed PSS in KiB of ``pids`` (a process
    gone meanwhile counts 0)."""
    total = dict.fromkeys(_FIELDS.values(), 0)
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
                for line in handle:
                    key = _FIELDS.get(line.split(b" ", 1)[0])
                    if key is not None:
                        total[key] += int(line.split()[1])
        except (OSError, ValueError):
            continue
    return total


@dataclass(frozen=True)
class Sampled:
    """One finished command: wall seconds, its output and exit code, memory peaks (KiB):
    ``peaks`` of the summed ``pss``, ``rss``, ``anon`` and ``file``, each with the seconds
    since the start when it was reached (``at_*``)."""

    wall: float
    out: bytes
    err: bytes
    returncode: int
    peaks: dict[str, float]
    maxrss_kib: int
    processes: int
    cpu: float
    """User + system seconds of the command and the children it waited for."""
    tree_cpu: float
    """User + system seconds of every process of the command tree, each its own as last
    sampled (so a process's last 50 ms may be missed)."""


def run_sampled(command: list[str], env: dict[str, str] | None = None,
                cwd: Path | None = None) -> Sampled:
    """Run ``command`` to its end as a fresh process, sampled for memory and CPU."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=cwd)
    peak: dict[str, float] = {"procs": 1}
    cpu: dict[int, float] = {}
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            pids = tree_of(proc.pid)
            cpu_seconds(pids, cpu)
            for key, kib in memory(pids).items():
                if kib > peak.get(key, 0):
                    peak[key], peak[f"at_{key}"] = kib, time.perf_counter() - start
            peak["procs"] = max(peak["procs"], len(pids))
            stop.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    err_chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: err_chunks.append(
        proc.stderr.read() if proc.stderr else b""), daemon=True)
    reader.start()  # both pipes drained at once, so neither fills and stalls the command
    out = proc.stdout.read() if proc.stdout else b""
    reader.join()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    stop.set()
    sampler.join()
    processes = int(peak.pop("procs"))
    return Sampled(wall, out, b"".join(err_chunks), os.waitstatus_to_exitcode(status), peak,
                   usage.ru_maxrss, processes, usage.ru_utime + usage.ru_stime,
                   sum(cpu.values()))
