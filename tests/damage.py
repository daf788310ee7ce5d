"""Helpers of the corruption tests: a small generated repository, byte flips, and the
comparable view of a store's derived trees.

"Equal to a clean index" means: the same full keys in every derived tree, and for each
key the same plain value of every field (``record.value``: the register's value, the
set's members, the flag's state), the ``$tick`` meta field and the root node's
``last_pass.finishedAtTick`` left out. Clocks, ticks and
dots legitimately differ between two indexes of the same files (they record when and by
whom a value was written), so they are not compared; what the tools read is.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path
from typing import Any

import lmdb

from repoctx.crdt import record
from repoctx.maintenance.repair import DERIVED
from repoctx.trees import BY_FAMILY, BY_NAME, TREES, codec, tree_of

MEMORY = BY_FAMILY["mem"].name


def make_repo(root: Path, packages: int = 3, modules: int = 6) -> Path:
    """A repository of ``packages`` x ``modules`` Python files, a README and a test."""
    for p in range(packages):
        pkg = root / f"pkg{p}"
        pkg.mkdir(parents=True, exist_ok=True)
        (pkg / "__init__.py").write_text(f'"""Package {p}."""\n')
        for m in range(modules):
            lines = [f'"""Module {m} of package {p}: widgets."""',
                     f"from pkg{(p + 1) % packages} import mod{m}", ""]
            for c in range(2):
                lines += [f"class Widget{p}{m}{c}:", f'    """Widget {c}."""',
                          "    def run(self, x):", f"        return helper{c}(x) + {c}", "",
                          f"def helper{c}(x):", f'    """Helper {c} doubles x."""',
                          "    return x * 2", ""]
            (pkg / f"mod{m}.py").write_text("\n".join(lines))
    (root / "README.md").write_text("# Demo\n\nA demo repository.\n\n## Usage\n\nRun it.\n")
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "test_mod.py").write_text(
        "from pkg0.mod0 import Widget000\n\n\ndef test_widget000():\n"
        "    assert Widget000().run(1)\n")
    return root


def flip(path: Path, count: int, rng: random.Random, start: int = 0) -> list[int]:
    """Flip one random bit in each of ``count`` random bytes of ``path`` at or after
    ``start``; returns the offsets."""
    data = bytearray(path.read_bytes())
    offsets = [rng.randrange(start, len(data)) for _ in range(count)]
    for offset in offsets:
        data[offset] ^= 1 << rng.randrange(8)
    path.write_bytes(bytes(data))
    return offsets


def derived_view(lmdb_dir: Path) -> dict[str, dict[str, Any]]:
    """Tree -> full key -> the record's plain field values, ``$tick`` left out."""
    return _view(lmdb_dir, DERIVED)


def memory_view(lmdb_dir: Path) -> dict[str, Any]:
    """Full key -> plain values of every memory record (``$tick`` left out)."""
    return _view(lmdb_dir, (MEMORY,))[MEMORY]


def _view(lmdb_dir: Path, names: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    env = lmdb.open(str(lmdb_dir), readonly=True, lock=False, max_dbs=32)
    try:
        view: dict[str, dict[str, Any]] = {}
        with env.begin() as txn:
            for name in names:
                db = env.open_db(name.encode(), txn=txn, create=False)
                tree = view[name] = {}
                for raw_key, raw in txn.cursor(db=db):
                    rec = codec.decode(BY_NAME[name], raw_key.decode(), bytes(raw))
                    values = record.value(rec)
                    values.pop(record.TICK, None)
                    if isinstance(values.get("last_pass"), dict):  # when the pass ended
                        values["last_pass"].pop("finishedAtTick", None)
                    tree[record.full_key(rec) or raw_key.decode()] = values
        return view
    finally:
        env.close()


def all_records_decode(lmdb_dir: Path) -> bool:
    """The truth a clean ``repoctx check`` must match, found without it: every tree's
    cursor reaches as many records as LMDB counts and every record decodes."""
    try:  # a flipped meta page can make the open itself fail (MDB_MAP_RESIZED, …)
        env = lmdb.open(str(lmdb_dir), readonly=True, lock=False, max_dbs=32)
    except Exception:  # noqa: BLE001 - any failure at all means not every record decodes
        return False
    try:
        with env.begin() as txn:
            for spec in TREES:
                db = env.open_db(spec.name.encode(), txn=txn, create=False)
                seen = 0
                for raw_key, raw in txn.cursor(db=db):
                    seen += 1
                    rec = codec.decode(spec, raw_key.decode(), bytes(raw))
                    tree_of(record.full_key(rec) or raw_key.decode())
                if seen != txn.stat(db)["entries"]:
                    return False
        return True
    except Exception:  # any failure at all means not every record decodes
        return False
    finally:
        env.close()


def run_cases(repo: Path, golden: Path, work: Path, cases: int, seed: int) -> None:
    """Flip bytes in copies of the store ``golden`` of ``repo``; run ``repoctx check``
    and ``repoctx repair`` (the CLI's own code, in this process) on each copy and print
    one JSON line per case. Run as a process of its own: a crash is then the test's
    finding, not the end of the test run."""
    from click.testing import CliRunner

    from repoctx.cli import main

    rng, runner = random.Random(seed), CliRunner()
    want, memory = derived_view(golden / "lmdb"), memory_view(golden / "lmdb")
    for case in range(cases):
        store = work / f"case{case}"
        shutil.copytree(golden, store)
        flips = flip(store / "lmdb" / "data.mdb", rng.randint(1, 40), rng)
        truth = all_records_decode(store / "lmdb")
        args = [str(repo), "--store", str(store), "--json"]
        checked = runner.invoke(main, ["check", *args])
        repaired = runner.invoke(main, ["repair", *args])
        after = runner.invoke(main, ["check", *args])
        got_memory = memory_view(store / "lmdb") if repaired.exit_code == 0 else {}
        print(json.dumps({
            "case": case, "flips": len(flips), "truth": truth,
            "check": checked.exit_code, "checkOk": _ok(checked.output),
            "checkOutput": checked.output[-2000:],
            "repair": repaired.exit_code, "repairOutput": repaired.output[-2000:],
            "after": after.exit_code,
            "derivedEqual": repaired.exit_code == 0 and derived_view(store / "lmdb") == want,
            "memoryKept": sorted(got_memory), "memoryAll": sorted(memory),
            "memoryChanged": {k: [repr(memory.get(k)), repr(v)] for k, v in got_memory.items()
                              if memory.get(k) != v},
        }), flush=True)
        shutil.rmtree(store)


def _ok(output: str) -> bool | None:
    try:
        return json.loads(output)["ok"]
    except (ValueError, KeyError, TypeError):
        return None


if __name__ == "__main__":
    run_cases(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]),
              int(sys.argv[5]))
