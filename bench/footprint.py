"""Store on disk vs source bytes: LMDB + ContextPull export, on Django and sympy.

Each corpus is hard-linked into a temp dir and indexed cold by a fresh ``repoctx index
PATH --store DIR --json``; then the bytes on disk (allocated blocks) of the LMDB folder
and of the export are compared with the source bytes (every regular file of the
extracted sdist). Target: LMDB + export <= 3x the source. The notes list where the bytes
go, from ``repoctx stats --json``: each tree, and each export table of at least 1 MB.

    python bench/footprint.py [--quick] [--out docs/benchmarks.md]

``--quick`` measures Django only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _corpus, _report beside us

from _corpus import Sdist, django_source, source  # noqa: E402
from _report import Results, run_and_write, tree_bench_arguments  # noqa: E402

SYMPY = Sdist("sympy", "1.14")
REPOCTX = [sys.executable, "-m", "repoctx"]
TARGET = 3.0
MB = 1e6


def disk_bytes(path: Path) -> int:
    """Allocated bytes of a file or of every file under a folder."""
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_blocks * 512 for p in files)


def source_bytes(root: Path) -> int:
    """Bytes of every regular file under ``root`` (symlinks not followed)."""
    total = 0
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                total += os.path.getsize(path)
    return total


def link_tree(src: Path, dest: Path) -> None:
    """Hard-link every file of ``src`` under ``dest`` (the corpus cache stays untouched)."""
    for folder, _, names in os.walk(src):
        target = dest / Path(folder).relative_to(src)
        target.mkdir(parents=True, exist_ok=True)
        for name in names:
            path = Path(folder) / name
            if not path.is_symlink():
                os.link(path, target / name)


def measure(label: str, corpus: Path, tmp: Path, res: Results) -> None:
    """Index ``corpus`` cold and add its footprint row and notes to ``res``."""
    root, store = tmp / f"{label}-tree", tmp / f"{label}-store"
    link_tree(corpus, root)
    subprocess.run([*REPOCTX, "index", str(root), "--store", str(store), "--json"],
                   check=True, capture_output=True)
    stats = json.loads(subprocess.run(
        [*REPOCTX, "stats", str(root), "--store", str(store), "--json"],
        check=True, capture_output=True, text=True).stdout)
    src = source_bytes(corpus)
    lmdb, export = disk_bytes(store / "lmdb"), disk_bytes(store / "contextpull.sqlite")
    total = lmdb + export
    res.add_text(f"{label}: LMDB {lmdb / MB:.1f} MB + export {export / MB:.1f} MB",
                 f"{total / MB:.1f} MB", f"<= {TARGET:g}x", total <= TARGET * src,
                 f"{src / MB:.1f} MB", f"{total / src:.2f}x")
    trees = ", ".join(f"`{t['tree'].removeprefix('repo-context-')}` {t['bytes'] / MB:.1f}"
                      for t in stats["trees"] if t["bytes"])
    tables = ", ".join(f"`{t['table']}` {t['bytes'] / MB:.1f}"
                       for t in stats["export"]["tables"] if t["bytes"] >= MB)
    res.notes.append(f"{label} LMDB trees (MB, pages in use): {trees}.")
    lmdb_file = stats["lmdb"]
    res.notes.append(
        f"{label} LMDB file {lmdb_file['bytes'] / MB:.1f} MB, of which the trees' pages "
        f"{lmdb_file['inTrees'] / MB:.1f} MB (the rest free pages or LMDB's own); the "
        "figure above is the folder's allocated blocks, so it counts the free pages too.")
    res.notes.append(f"{label} export tables of 1 MB or more (MB): {tables}.")
    print(f"{label}: {total / src:.2f}x", file=sys.stderr)


def main() -> None:
    args = tree_bench_arguments(__doc__.splitlines()[0], 1, "Django only")

    def run(tmp: Path, res: Results) -> None:
        measure("Django", django_source(), tmp, res)
        if not args.quick:
            measure("sympy", source(SYMPY), tmp, res)

    run_and_write(args.out, "footprint", "Footprint: store on disk vs source", run)


if __name__ == "__main__":
    main()
