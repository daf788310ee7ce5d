"""Killing a real export at the moment it writes: the crash-safety tests share it."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from repoctx.contextpull.write.leftovers import temporary_name


def kill_while_exporting(command: list[str], out: Path) -> Path:
    """Run ``command`` and SIGKILL it once its export of ``out`` has bytes in its
    temporary file; returns that file's path. Fails when the command finished first."""
    victim = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    tmp = temporary_name(out, victim.pid)
    deadline = time.monotonic() + 120
    while not (tmp.exists() and tmp.stat().st_size > 0) and victim.poll() is None:
        assert time.monotonic() < deadline, "the export never started writing"
        time.sleep(0.002)
    victim.send_signal(signal.SIGKILL)
    assert victim.wait(timeout=30) == -signal.SIGKILL, "the export finished before the kill"
    return tmp
