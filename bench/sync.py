"""Anti-entropy efficiency: records and bytes one exchange ships after a few changes.

A store of N records (file-node-like LWW records, ~300 bytes) is copied to a second
replica (a backup, so the copy takes a new replica id); then 100 records change on
the copy and the two stores sync. Target: after 100 changed records out of
100,000 an exchange ships at most a few hundred records, and a repeated one ships
none. Also measured: the first exchange into an empty replica.

    python bench/sync.py [--records N] [--changed K] [--out docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import time
from pathlib import Path

from _report import write_section

from repoctx import open_store
from repoctx.crdt import lww_register, record
from repoctx.store import Store
from repoctx.sync import LocalTransport, Responder, sync

BATCH = 1000


def file_node(store: Store, i: int, version: int) -> record.Record:
    tick = store.tick()

    def lww(value: object) -> lww_register.LwwRegister:
        return lww_register.set_value(lww_register.empty(), value, tick, store.replica_id)

    return record.write({
        "size": lww(10_000 + i + version),
        "mtime_ns": lww(1_732_950_000_000_000_000 + i + version),
        "digest": lww(hashlib.sha256(f"{i}:{version}".encode()).hexdigest()),
        "language": lww("python"),
        "tokens": lww(1_234 + i),
        "markers": lww(("content", "symbols", "xref")),
    }, tick)


def fill(store: Store, n: int) -> None:
    for start in range(0, n, BATCH):
        with store.batch() as b:
            for i in range(start, min(n, start + BATCH)):
                b.merge(store.key("file", f"src/pkg{i % 97}/mod{i}.py"), file_node(store, i, 0))


def exchange(a: Store, b: Store) -> tuple[dict, float]:
    start = time.perf_counter()
    report = sync(a, LocalTransport(Responder(b), "peer", closing=False))
    return report.as_json(), time.perf_counter() - start


def row(name: str, r: dict, seconds: float) -> dict:
    return {"scenario": name, "records": r["sent"] + r["received"],
            "record_bytes": r["bytesSent"] + r["bytesReceived"], "wire_bytes": r["wireBytes"],
            "seconds": seconds}


def run(n: int, changed: int) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        a = open_store(Path(tmp) / "a", repo_id="bench", replica_id="ra", map_size=1 << 30)
        fill(a, n)
        empty = open_store(Path(tmp) / "e", repo_id="bench", replica_id="re", map_size=1 << 30)
        rows.append(row(f"first exchange, {n:,} records into an empty replica",
                        *exchange(empty, a)))
        empty.close()
        a.backup(Path(tmp) / "copy")
        b = open_store(Path(tmp) / "b", repo_id="bench", store_dir=Path(tmp) / "copy",
                       map_size=1 << 30)
        step = max(1, n // changed)
        with b.batch() as batch:
            for i in range(0, step * changed, step):
                batch.merge(b.key("file", f"src/pkg{i % 97}/mod{i}.py"), file_node(b, i, 1))
        rows.append(row(f"{changed} records changed on one side", *exchange(a, b)))
        rows.append(row("repeated exchange", *exchange(a, b)))
        with a.batch() as batch:
            for i in range(1, step * changed, step * 2):
                batch.merge(a.key("file", f"src/pkg{i % 97}/mod{i}.py"), file_node(a, i, 2))
        with b.batch() as batch:
            for i in range(2, step * changed, step * 2):
                batch.merge(b.key("file", f"src/pkg{i % 97}/mod{i}.py"), file_node(b, i, 2))
        rows.append(row(f"{changed} records changed, half on each side", *exchange(a, b)))
        rows.append(row("repeated exchange", *exchange(b, a)))
        a.close()
        b.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--changed", type=int, default=100)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    args = parser.parse_args()
    rows = run(args.records, args.changed)
    lines = ["| scenario | records shipped | record bytes | bytes on the wire | seconds |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r['scenario']} | {r['records']:,} | {r['record_bytes']:,} "
                     f"| {r['wire_bytes']:,} | {r['seconds']:.2f} |")
    print("\n".join(lines))
    write_section(args.out, "sync", f"Anti-entropy exchange ({args.records:,} records; "
                  f"target: {args.changed} changes ship at most a few hundred records, a "
                  "repeated exchange none)", "\n".join(lines))


if __name__ == "__main__":
    main()
