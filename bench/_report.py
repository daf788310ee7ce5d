"""Shared by the benchmarks: write one section of docs/benchmarks.md in place."""

from __future__ import annotations

import argparse
import os
import platform
import re
import time
from pathlib import Path

HEADER = "# Benchmarks\n\nWritten by the scripts in `bench/`; each section is replaced when its\n" \
         "script runs again. Ratios compare against a floor measured in the same run.\n"


def write_section(path: Path, name: str, title: str, body: str) -> None:
    """Replace (or append) the section ``name`` of the benchmark report."""
    text = path.read_text() if path.exists() else HEADER
    stamp = (f"_{time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, "
             f"{platform.machine()}, `python bench/{name}.py`_")
    section = f"<!-- {name} -->\n## {title}\n\n{stamp}\n\n{body}\n<!-- /{name} -->\n"
    pattern = re.compile(rf"<!-- {name} -->.*?<!-- /{name} -->\n", re.S)
    text = pattern.sub(lambda _: section, text) if pattern.search(text) else text + "\n" + section
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def load_average() -> str:
    """The 1- and 5-minute load averages, for the notes of a run on a shared machine."""
    one, five, _ = os.getloadavg()
    return f"{one:.2f}/{five:.2f}"


def tree_bench_arguments(description: str, repeat: int, quick: str) -> argparse.Namespace:
    """The options of the benches over Django and a 50k tree (--quick, --skip-50k, ...)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help=quick)
    parser.add_argument("--skip-50k", action="store_true", help="leave out the 50k tree")
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    return parser.parse_args()
