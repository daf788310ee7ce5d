"""Where the CPU of a cold ``repoctx index`` goes, on Django: per phase and per FTS5 index.

CPU-seconds (user + system), not walls: the machine is shared, and a CPU-second spent is
one whatever the load. Measured on a store indexed once by ``repoctx index`` (a fresh
process, whose command-tree CPU is the total), then in this process:

- the export as ``repoctx index`` runs it (search rows built in the sectioning
  workers), the same export without the search tables (ContextPull's own tables only),
  and the export with the search tables built after it from the finished file (the
  two-pass alternative): this process's CPU and its forked workers' (``RUSAGE_CHILDREN``);
- the per-document work of the workers, in process: read + SHA-256, sectioning
  (definitions from the store), encoding, and the search values (``SearchRows.compute``);
- each FTS5 index alone: the same rows inserted into a fresh file in one transaction,
  as the writer does (``sections_fts``; the search tables' Porter main and ``_aux``
  tables, and the trigram names table, each with its final ``optimize``), and the
  search tables' plain tables (symbols, parts, vocabulary, rows).

    python bench/export_cpu.py [--out docs/benchmarks.md] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import django_source  # noqa: E402
from _report import load_average, write_section  # noqa: E402
from e2e import _cpu_seconds, _tree_of, link_tree, run_index  # noqa: E402
from e2e_incremental import import_once  # noqa: E402

from repoctx import open_store  # noqa: E402
from repoctx.contextpull import export_store  # noqa: E402
from repoctx.contextpull.schema import SECTION_MAX_CHARS, schema_statements  # noqa: E402
from repoctx.contextpull.write.encoded import encode  # noqa: E402
from repoctx.contextpull.write.records import prepare  # noqa: E402
from repoctx.contextpull.write.store_export import StoreDefinitions, _documents  # noqa: E402
from repoctx.reconcile.nodes import file_node
from repoctx.retrieval.index.export_extras import ExportExtras, export_extras  # noqa: E402
from repoctx.retrieval.index.tables import (  # noqa: E402
    AUX_TABLE,
    DDL,
    TEXT_TABLE,
    SearchRows,
)


def _own_cpu() -> float:
    """This process's user + system seconds."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


def timed(function: Callable[[], object]) -> tuple[float, float, float]:
    """(wall, own CPU, descendants' CPU) of ``function()``: the descendants (forked or
    forkserver workers; ``RUSAGE_CHILDREN`` misses a forkserver's) sampled every 50 ms
    from ``/proc``, each as last seen, those alive before excluded."""
    before = {pid: 0.0 for pid in _tree_of(os.getpid())}
    seen: dict[int, float] = {}
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            _cpu_seconds([p for p in _tree_of(os.getpid()) if p not in before], seen)
            stop.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    start, own = time.perf_counter(), _own_cpu()
    sampler.start()
    function()
    stop.set()
    sampler.join()
    return time.perf_counter() - start, _own_cpu() - own, sum(seen.values())


class _AfterTheExport(ExportExtras):
    section_rows = None  # the search tables built from the finished file


def _in_process_work(store, root: Path) -> dict[str, float]:
    """The workers' per-document work, in this process, phase by phase."""
    out: dict[str, float] = {"read+sha": 0.0, "section": 0.0, "encode": 0.0, "search": 0.0}
    rows_all = []
    with store.snapshot() as snapshot:
        records = file_node.records_in(store, snapshot)
        known: dict = {}
        docs = list(_documents(root, records, 4 << 20, known))
        defs = StoreDefinitions(store, snapshot, known, records)
        defs.prefetch([d.path for d in docs])
        search = SearchRows()
        for item in docs:
            t0 = time.process_time()
            doc = item.read_checked()
            t1 = time.process_time()
            out["read+sha"] += t1 - t0
            if isinstance(doc, str):
                continue
            from repoctx.contextpull.write.pool import _with_definitions

            doc = _with_definitions(doc, defs)
            rows = prepare(doc, SECTION_MAX_CHARS, "now")
            t2 = time.process_time()
            out["section"] += t2 - t1
            encoded = encode(rows)
            t3 = time.process_time()
            out["encode"] += t3 - t2
            computed = search.compute(rows, defs.declared(rows.path, rows.sha256))
            out["search"] += time.process_time() - t3
            rows_all.append((encoded, computed))
    out["_rows"] = rows_all  # type: ignore[assignment]
    return out


def _fts_costs(rows_all: list) -> dict[str, float]:
    """Each index alone: the rows inserted into a fresh file, one transaction."""
    fts_rows, text, aux, names = [], [], [], []
    rowid = 1
    for encoded, computed in rows_all:
        for fts, (values, _, _) in zip(encoded.fts, computed, strict=True):
            fts_rows.append((*fts, rowid))
            (aux if values[2] else text).append((rowid, *values[0]))
            names.append((rowid, *values[1]))
            rowid += 1
    contract = [s for s in schema_statements() if "sections_fts" in s]
    ddl = {TEXT_TABLE: DDL[0], AUX_TABLE: DDL[1], "repoctx_search_names": DDL[2]}
    jobs = {
        "sections_fts (the contract's)": (contract, "INSERT INTO sections_fts(id, heading_path,"
                                          " text, rowid) VALUES (?, ?, ?, ?)", fts_rows, None),
        "Porter main (repoctx_search_text)": (
            [ddl[TEXT_TABLE]], f"INSERT INTO {TEXT_TABLE}(rowid, name, path, heading, body)"
            " VALUES (?, ?, ?, ?, ?)", text, TEXT_TABLE),
        "Porter _aux (repoctx_search_text_aux)": (
            [ddl[AUX_TABLE]], f"INSERT INTO {AUX_TABLE}(rowid, name, path, heading, body)"
            " VALUES (?, ?, ?, ?, ?)", aux, AUX_TABLE),
        "trigram names (repoctx_search_names)": (
            [ddl["repoctx_search_names"]], "INSERT INTO repoctx_search_names(rowid, name, path,"
            " heading) VALUES (?, ?, ?, ?)", names, "repoctx_search_names"),
    }
    costs = {}
    with tempfile.TemporaryDirectory(prefix="export-cpu-") as tmp:
        for label, (statements, insert, rows, optimize) in jobs.items():
            conn = sqlite3.connect(Path(tmp) / f"{len(costs)}.sqlite", isolation_level=None)
            conn.execute("PRAGMA journal_mode = OFF")
            conn.execute("PRAGMA synchronous = OFF")
            conn.execute("PRAGMA page_size = 16384")
            for statement in statements:
                conn.execute(statement)
            if optimize is None:  # the writer's full rewrite holds automerge off
                conn.execute("INSERT INTO sections_fts(sections_fts, rank)"
                             " VALUES ('automerge', 0)")
            start = time.process_time()
            conn.execute("BEGIN")
            conn.executemany(insert, rows)
            if optimize is not None:
                conn.execute(f"INSERT INTO {optimize}({optimize}) VALUES ('optimize')")
            conn.execute("COMMIT")
            costs[f"{label}, {len(rows):,} rows"] = time.process_time() - start
            conn.close()
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="export-cpu-"))
    lines: list[str] = []
    try:
        root, store_dir = tmp / "django", tmp / "store"
        link_tree(django_source(), root)
        run = run_index(root, store_dir)
        _, imports = import_once()
        lines.append(f"- cold `repoctx index` (fresh process): wall {run.wall:.2f} s, CPU of "
                     f"the command tree {run.tree_cpu:.1f} s; phases "
                     + ", ".join(f"{k} {v:.2f}" for k, v in sorted(run.seconds.items()))
                     + f"; `python -c \"import repoctx\"` {imports:.2f} CPU-s.")
        rows = [("phase", "wall s", "CPU-s this process", "CPU-s workers")]
        with open_store(root, store_dir=store_dir) as store:
            for label, finalize in (
                    ("export, search rows in the sectioning workers (now)",
                     export_extras(store)),
                    ("export, ContextPull tables only (no search tables)", None),
                    ("export, search tables built after it from the file (before)",
                     _AfterTheExport(store))):
                out = tmp / "e.sqlite"
                out.unlink(missing_ok=True)
                wall, own, kids = timed(lambda f=finalize, o=out: export_store(
                    store, root, o, finalize=f))
                rows.append((label, f"{wall:.2f}", f"{own:.2f}", f"{kids:.2f}"))
                print(rows[-1], file=sys.stderr)
            work = _in_process_work(store, root)
        fts = _fts_costs(work.pop("_rows"))  # type: ignore[arg-type]
        table = ["| " + " | ".join(r) + " |" for r in rows[:1]]
        table.append("| --- | ---: | ---: | ---: |")
        table += ["| " + " | ".join(r) + " |" for r in rows[1:]]
        lines += ["", *table, "", "| per-document work, in one process | CPU-s |",
                  "| --- | ---: |"]
        lines += [f"| {k} | {v:.2f} |" for k, v in work.items()]
        lines += ["", "| each FTS5 index alone (fresh file, one transaction) | CPU-s |",
                  "| --- | ---: |"]
        lines += [f"| {k} | {v:.2f} |" for k, v in fts.items()]
        lines.append(f"\nLoad {load_average()}.")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    body = "\n".join(lines) + "\n"
    print(body)
    if not args.no_write:
        write_section(args.out, "export_cpu", "Where a cold index's CPU goes (Django)", body)


if __name__ == "__main__":
    main()
