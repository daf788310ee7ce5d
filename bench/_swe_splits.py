"""The SWE-bench splits ``bench/swe.py`` scores: their instances, the tree each instance is
asked against, and the lines each reference fix edits.

- ``django``: ``swe-django/instances.jsonl``; an instance's tree is the sdist of its
  release series (``_corpus``), which already holds the fix and carries no patch.
- ``sympy`` and ``sphinx``: ``swe-dev/instances.jsonl``; an instance's tree is its exact
  base commit, taken from a bare git mirror named by ``SWE_MIRROR_SYMPY`` /
  ``SWE_MIRROR_SPHINX`` (``git archive COMMIT | tar -x``) and cached by commit under
  ``bench/.cache/swe/trees/``; each carries its fix as a unified diff.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from _corpus import CACHE, Sdist, source

DATA_ENV = "REPOCTX_BENCH_DATA"
"""Names the folder holding ``swe-django/`` and ``swe-dev/``; by default
``../shared/bench-data`` is looked for beside the checkout, and beside the folder holding it
(a git worktree's place)."""
_CHECKOUT = Path(__file__).resolve().parents[1]
DATA_BASES = ((Path(os.environ[DATA_ENV]),) if os.environ.get(DATA_ENV) else
              (_CHECKOUT.parent / "shared" / "bench-data",
               _CHECKOUT.parents[1] / "shared" / "bench-data"))
"""Where the splits' folders may be, in the order looked at."""
SPLITS = ("django", "sympy", "sphinx")
DEV_REPOS = {"sympy": "sympy/sympy", "sphinx": "sphinx-doc/sphinx"}
"""The ``swe-dev`` splits, by the ``repo`` field of their instances."""
MIRROR_ENV = {"sympy": "SWE_MIRROR_SYMPY", "sphinx": "SWE_MIRROR_SPHINX"}
TREES = CACHE / "swe" / "trees"
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Instance:
    """One SWE-bench task: the issue text, the tree it is asked against (a Django release
    series or a base commit) and what its reference fix edits (``patch`` empty when the
    split carries none)."""

    id: str
    split: str
    tree: str
    task: str
    gold: tuple[str, ...]
    spans: dict[str, list[str]]
    patch: str = ""


def data_dir(folder: str) -> Path:
    """Where the split folder ``folder``'s ``instances.jsonl`` lives."""
    for base in DATA_BASES:
        if (base / folder / "instances.jsonl").is_file():
            return base / folder
    looked = ", ".join(str(b / folder / "instances.jsonl") for b in DATA_BASES)
    raise SystemExit(f"bench/swe.py needs the SWE-bench split {folder}/, which is not part "
                     f"of the project: no instances.jsonl at {looked}. Put the shared bench "
                     f"data beside the checkout or set {DATA_ENV} to the folder holding "
                     f"{folder}/.")


def _rows(folder: str) -> list[dict]:
    text = (data_dir(folder) / "instances.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def load_instances(split: str, limit: int | None, series: str | None = None) -> list[Instance]:
    """The first ``limit`` instances of ``split`` (of one Django series when asked)."""
    if split == "django":
        out = []
        for row in _rows("swe-django"):
            found = row["sdist"].split("==", 1)[1].removesuffix(".*")
            if series is None or found == series:
                out.append(Instance(row["instance_id"], split, found, row["problem_statement"],
                                    tuple(row["gold_files"]), row["gold_spans"]))
    else:
        out = [Instance(row["instance_id"], split, row["base_commit"], row["problem_statement"],
                        tuple(row["gold_files"]), row["gold_spans"], row["patch"])
               for row in _rows("swe-dev") if row["repo"] == DEV_REPOS[split]]
    return out[:limit] if limit else out


def mirror(split: str) -> Path:
    """The bare git directory of a ``swe-dev`` split's repository, from its variable."""
    name = MIRROR_ENV[split]
    value = os.environ.get(name)
    if not value:
        raise SystemExit(f"the {split} split needs a git mirror of {DEV_REPOS[split]}: set "
                         f"{name} to its bare git directory (the search tool's `fetch "
                         f"github:{DEV_REPOS[split]}` answers with one), or leave the split "
                         "out with --split.")
    path = Path(value)
    if not (path / "HEAD").is_file():
        raise SystemExit(f"{name}={value} is not a bare git directory (no HEAD file there)")
    return path


def tree_root(split: str, tree: str) -> Path:
    """The files of ``tree``: the Django series' sdist, or the base commit extracted once
    (into a temporary folder renamed when complete, so a killed run leaves no half tree)."""
    if split == "django":
        return source(Sdist("django", tree)).resolve()
    folder = TREES / f"{split}-{tree}"
    if folder.is_dir():
        return folder
    partial = TREES / f".{split}-{tree}.{os.getpid()}.partial"  # runs may share the cache
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    archive = subprocess.Popen(["git", f"--git-dir={mirror(split)}", "archive", tree],
                               stdout=subprocess.PIPE)
    untar = subprocess.run(["tar", "-x", "-C", str(partial)], stdin=archive.stdout,
                           check=False)
    assert archive.stdout is not None
    archive.stdout.close()
    if archive.wait() or untar.returncode:
        shutil.rmtree(partial, ignore_errors=True)
        raise SystemExit(f"could not extract {split} commit {tree} from {mirror(split)} "
                         "(is the mirror up to date?)")
    try:
        partial.rename(folder)
    except OSError:  # another run extracted the same commit first: keep its tree
        shutil.rmtree(partial, ignore_errors=True)
    return folder


def patch_lines(patch: str, read: Callable[[str], list[str] | None] = lambda path: None,
                ) -> dict[str, set[int]]:
    """Per file the patch edits, the lines (numbered as before the fix) it changes: its
    ``-`` lines, and for a run of ``+`` lines with no ``-`` line (a pure insertion) the
    lines either side of it (the one past the end of the file too: scoring clips it).
    Files the patch creates are left out.

    ``read(path)``: the file's lines as the fix found them (None: unknown). A hunk whose
    old lines are not where its header says is placed where they are, the nearest such
    place, as ``patch`` applies it with an offset (a pull request's diff against an older
    tree than the task's base commit: 8 of sympy's tasks)."""
    out: dict[str, set[int]] = {}
    texts: dict[str, list[str] | None] = {}
    for path, start, body in _hunks(patch):
        if path not in texts:
            texts[path] = read(path)
        start = _placed(start, body, texts[path])
        out.setdefault(path, set()).update(_hunk_lines(start, body))
    return out


def _placed(start: int, body: list[str], text: list[str] | None) -> int:
    """The first old line of a hunk in ``text``: ``start`` when its old lines are there
    (or ``text`` is unknown, or holds them nowhere), else the nearest line they start at."""
    old = [raw[1:] for raw in body if raw[:1] in (" ", "-", "")]
    if text is None or not old or text[start - 1:start - 1 + len(old)] == old:
        return start
    places = [n for n in range(1, len(text) - len(old) + 2)
              if text[n - 1] == old[0] and text[n - 1:n - 1 + len(old)] == old]
    return min(places, key=lambda n: abs(n - start), default=start)


def _hunks(patch: str) -> list[tuple[str, int, list[str]]]:
    """(file as before the fix, first old line, body lines) of every hunk; a hunk's body
    is as long as its header says, so a changed line that looks like a header is read
    as the change it is."""
    out: list[tuple[str, int, list[str]]] = []
    path: str | None = None
    left = 0  # old + new lines of the current hunk still to read
    for raw in patch.splitlines():
        if left > 0:
            if not raw.startswith("\\"):  # "\ No newline at end of file"
                out[-1][2].append(raw)
                left -= 2 if raw[:1] in (" ", "") else 1
        elif raw.startswith("--- "):
            name = raw[4:].split("\t", 1)[0]
            path = name[2:] if name.startswith("a/") else None
        elif (hunk := _HUNK.match(raw)) is not None and path is not None:
            old_count, new_count = (int(n) if n else 1 for n in hunk.group(2, 4))
            # with no old lines, the header names the line before the insertion
            out.append((path, int(hunk.group(1)) + (old_count == 0), []))
            left = old_count + new_count
    return out


def _hunk_lines(start: int, body: list[str]) -> set[int]:
    """The old lines one hunk changes (see ``patch_lines``)."""
    lines: set[int] = set()
    old, removed, inserted = start, False, False
    for raw in [*body, " "]:  # a closing context line ends the last run
        if raw.startswith("-"):
            lines.add(old)
            old, removed = old + 1, True
        elif raw.startswith("+"):
            inserted = True
        else:
            if inserted and not removed:
                lines.update(n for n in (old - 1, old) if n >= 1)
            old, removed, inserted = old + 1, False, False
    return lines
