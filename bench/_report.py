"""Shared by the benchmarks: the results table, and one section of docs/benchmarks.md
written in place."""

from __future__ import annotations

import argparse
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HEADER = ("# Benchmarks\n\nWritten only by the scripts in `bench/` (through `bench/_report.py`'s "
          "`write_section`); each section is replaced when its\nscript runs again and is "
          "stamped with the command, the commit, the date and the machine's load at\nthe "
          "start and end of the run. Ratios compare against a floor measured in the same "
          "run.\n")

_START_LOAD = os.getloadavg()
"""The load averages when the script began (this module is imported at its start)."""
_ROOT = Path(__file__).resolve().parents[1]


def _commit() -> str:
    """The checkout's commit, marked ``+changes`` when code outside ``docs/`` differs."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(_ROOT), *args], capture_output=True,
                              text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs")
    return head + ("+changes" if changed else "")


def stamp() -> str:
    """Script, arguments, commit, date, Python, cores and load (start / end) of this run:
    every section of the report carries it, so each figure says what produced it."""
    script = Path(sys.argv[0]).resolve()
    try:
        script_name = script.relative_to(_ROOT).as_posix()
    except ValueError:
        script_name = script.name
    command = " ".join(["python", script_name, *map(shlex.quote, sys.argv[1:])])
    one, five, _ = _START_LOAD
    end_one, end_five, _ = os.getloadavg()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return (f"_`{command}` at commit `{_commit()}`, {when}, "
            f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} "
            f"cores shared with other work: load average (1/5 min) {one:.2f}/{five:.2f} at "
            f"the start, {end_one:.2f}/{end_five:.2f} at the end._")


def write_section(path: Path, name: str, title: str, body: str) -> None:
    """Replace (or append) the section ``name`` of the benchmark report, stamped with
    what produced it (``stamp()``)."""
    text = path.read_text() if path.exists() else HEADER
    section = f"<!-- {name} -->\n## {title}\n\n{stamp()}\n\n{body}\n<!-- /{name} -->\n"
    pattern = re.compile(rf"<!-- {name} -->.*?<!-- /{name} -->\n", re.S)
    text = pattern.sub(lambda _: section, text) if pattern.search(text) else text + "\n" + section
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def percentile(samples: list[float], p: int) -> float:
    """The ``p``-th percentile (inclusive method); the sample itself when there is one."""
    if len(samples) < 2:
        return samples[0] if samples else 0.0
    return statistics.quantiles(samples, n=100, method="inclusive")[p - 1]


def load_average() -> str:
    """The 1- and 5-minute load averages, for the notes of a run on a shared machine."""
    one, five, _ = os.getloadavg()
    return f"{one:.2f}/{five:.2f}"


def tree_bench_arguments(description: str, repeat: int, quick: str,
                         **flags: str) -> argparse.Namespace:
    """The options of the benches over Django and a 50k tree (--quick, --skip-50k, ...),
    and a bench's own on/off ``flags`` (name → help)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help=quick)
    for name, text in flags.items():
        parser.add_argument(f"--{name.replace('_', '-')}", action="store_true", help=text)
    parser.add_argument("--skip-50k", action="store_true", help="leave out the 50k tree")
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    return parser.parse_args()


def _secs(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


@dataclass
class Results:
    """Table rows (measure, value, floor, ratio, target, met) and notes under the table."""

    rows: list[tuple[str, ...]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, measure: str, value: float, floor: float | None = None,
            limit: float | None = None, target: str = "") -> None:
        """A timed row; ``limit`` is the largest ratio (with a floor) or seconds meeting it."""
        ratio = value / floor if floor else None
        met = "" if limit is None else ("yes" if (ratio if floor else value) <= limit
                                        else "**no**")
        self.rows.append((measure, _secs(value), _secs(floor) if floor else "",
                          f"{ratio:.2f}x" if ratio is not None else "", target, met))

    def add_text(self, measure: str, value: str, target: str = "", met: bool | None = None,
                 floor: str = "", ratio: str = "") -> None:
        """A row whose value is not seconds."""
        self.rows.append((measure, value, floor, ratio, target,
                          "" if met is None else ("yes" if met else "**no**")))


def table(res: Results, value: str = "value") -> str:
    """The results as markdown (``value`` heads the value column)."""
    lines = [f"| measure | {value} | floor | ratio | target | met? |",
             "| --- | ---: | ---: | ---: | --- | --- |"]
    lines += ["| " + " | ".join(row) + " |" for row in res.rows]
    return "\n".join(lines) + "\n\n" + "\n".join(f"- {n}" for n in res.notes) + "\n"


def run_and_write(out: Path, name: str, title: str, run: Callable[[Path, Results], None],
                  value: str = "value", write: bool = True) -> None:
    """``run(tmp, results)`` in a temporary directory, with the load average noted before
    and after; print the table and (unless not ``write``) write it as the section
    ``name`` of ``out``."""
    res = Results()
    res.notes.append(f"{os.cpu_count()} cores, shared with other work: load average "
                     f"(1/5 min) {load_average()} at the start.")
    with tempfile.TemporaryDirectory(prefix=f"repoctx-bench-{name}-") as tmp:
        run(Path(tmp), res)
    res.notes.append(f"Load average at the end: {load_average()}.")
    body = table(res, value)
    print(body)
    if write:
        write_section(out, name, title, body)
