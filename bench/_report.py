"""Shared by the benchmarks: write one section of docs/benchmarks.md in place."""

from __future__ import annotations

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
