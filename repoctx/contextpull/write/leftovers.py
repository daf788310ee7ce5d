"""`contextpull/write/leftovers` — temporary files that killed exports left beside an output.

An export builds ``.{name}.{pid}.tmp`` beside its output ``name`` and renames it into
place; a process killed before the rename (SIGKILL, OOM, power loss) leaves it there,
as big as the export (192 MB). The next export to the same output removes,
before it starts, every such file (and its SQLite side files) whose process is gone,
and any not modified for ``STALE_SECONDS`` whatever its pid says (the pid may have been
reused, or belong to another machine sharing the directory). A live export's file is
written continuously and its process answers, so neither rule touches it. Removing is
best effort: a file that cannot be removed is left for the next export.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

STALE_SECONDS = 24 * 3600


def temporary_name(out: Path, pid: int | None = None) -> Path:
    """Where an export to ``out`` by process ``pid`` (this one by default) is built."""
    return out.with_name(f".{out.name}.{os.getpid() if pid is None else pid}.tmp")


def _pattern(out: Path) -> re.Pattern[str]:
    return re.compile(re.escape(f".{out.name}.") + r"(\d+)\.tmp(?:-journal|-wal|-shm)?")


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one of another user's counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_leftovers(out: Path, now: float | None = None) -> list[str]:
    """Remove the temporary files of exports to ``out`` that will never finish; returns
    the names removed (sorted)."""
    pattern, now = _pattern(out), time.time() if now is None else now
    try:
        names = os.listdir(out.parent)
    except OSError:
        return []  # no directory yet: nothing was left in it
    removed = []
    for name in names:
        match = pattern.fullmatch(name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        path = out.parent / name
        try:
            stale = now - path.stat().st_mtime > STALE_SECONDS
            if stale or not pid_alive(int(match.group(1))):
                path.unlink()
                removed.append(name)
        except OSError:
            continue  # gone meanwhile, or not ours to remove: the next export tries again
    return sorted(removed)
