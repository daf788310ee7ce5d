"""memory/archive — export the memory tree to JSON lines and merge an archive back in.

An archive is a header line ``{"archive": "repoctx-memory", "version": 1, "repoId",
"exportedAt", "records"}`` and one line per record, ``{"key", "record"}`` with the
record's canonical bytes in base64: full CRDT records, tombstones and expired ones
included, so an import carries deletions and causal history too. Import merges each
record through the ordinary read-merge-write, so importing twice, or onto a store
that diverged since the export, loses nothing (merge is idempotent and commutative).

An import first checks every line (nothing is written if any is bad), then merges in
batches; each batch also advances a progress marker in the store-local tree under
``memory-archive/restore/{sha256 of the archive}``: outside every repository's range,
so it is never exported, replicated or counted as memory. An interrupted import
resumes after the last committed batch; a finished one removes its marker.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from repoctx.crdt import record, wall_ms
from repoctx.crdt.record import Record
from repoctx.errors import CrdtError, InvalidKeyError, ToolError
from repoctx.store import Store
from repoctx.trees import BY_FAMILY, Batch, tree_of

from .entries import writing
from .memory_record import FAMILY
from .views import iso

ARCHIVE, VERSION = "repoctx-memory", 1
MARKER_PREFIX = "memory-archive/restore/"
BATCH_RECORDS = 500


def export_archive(store: Store, path: str | Path) -> dict[str, Any]:
    """Write the repository's memory records to ``path`` (atomically); ``{path, records}``."""
    target = Path(path)
    spec = BY_FAMILY[FAMILY]
    with store.snapshot() as snap:
        rows = [(key, record.encode(rec)) for key, rec in
                snap.scan_tree(spec, store.key(FAMILY, "x")[:-1], include_hidden=True)]
    header = {"archive": ARCHIVE, "version": VERSION, "repoId": store.repo_id,
              "exportedAt": iso(wall_ms()), "records": len(rows)}
    partial = target.with_name(target.name + ".partial")
    try:
        with open(partial, "w", encoding="utf-8") as out:
            out.write(json.dumps(header) + "\n")
            for key, raw in rows:
                line = {"key": key, "record": base64.b64encode(raw).decode()}
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
        os.replace(partial, target)
    except OSError as exc:
        raise ToolError(f"cannot write {target}: {exc.strerror or exc}") from None
    return {"path": str(target), "records": len(rows)}


def import_archive(store: Store, path: str | Path, batch_records: int = BATCH_RECORDS,
                   ) -> dict[str, Any]:
    """Merge every record of the archive at ``path``; ``{records, changed, resumedAt}``."""
    data = _read(Path(path))
    rows = parse_archive(data)
    marker = MARKER_PREFIX + hashlib.sha256(data).hexdigest()
    start = int(store.trees.get_local(marker, {"done": 0})["done"])
    changed = 0
    for at in range(start, len(rows), batch_records):
        chunk = rows[at:at + batch_records]
        with writing(store) as b:
            changed += _merge_batch(store, b, chunk)
            b.put_local(marker, {"done": at + len(chunk)})
    with writing(store) as b:
        b.delete_local(marker)
    return {"records": len(rows), "changed": changed, "resumedAt": start}


def parse_archive(data: bytes) -> list[tuple[str, Record]]:
    """Every ``(key, record)`` of an archive, checked; a bad line is a ``ToolError``."""
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise ToolError("archive: not UTF-8 text") from None
    if not lines:
        raise ToolError("archive: empty file")
    header = _json(lines[0], 1)
    if not isinstance(header, dict) or header.get("archive") != ARCHIVE:
        raise ToolError("archive: line 1 is not a repoctx memory archive header")
    if header.get("version") != VERSION:
        raise ToolError(f"archive: version {header.get('version')!r}; this build reads {VERSION}")
    return [_row(line, n) for n, line in enumerate(lines[1:], start=2) if line.strip()]


def _row(line: str, n: int) -> tuple[str, Record]:
    row = _json(line, n)
    if not isinstance(row, dict) or not isinstance(row.get("key"), str) \
            or not isinstance(row.get("record"), str):
        raise ToolError(f"archive line {n}: expected {{key, record}}")
    key = row["key"]
    try:
        if tree_of(key) is not BY_FAMILY[FAMILY]:
            raise ToolError(f"archive line {n}: {key!r} is not a memory key")
        rec = record.decode(base64.b64decode(row["record"], validate=True))
        record.validate(rec)
    except (InvalidKeyError, CrdtError, binascii.Error) as exc:
        raise ToolError(f"archive line {n}: {exc}") from None
    return key, rec


def _merge_batch(store: Store, b: Batch, chunk: list[tuple[str, Record]]) -> int:
    """Merge one chunk; returns how many records it changed."""
    before = sum(b.written.values())
    for key, rec in chunk:
        store.clock.observe(record.tick(rec))  # later local writes tick past imported ones
        b.merge(key, rec)
    return sum(b.written.values()) - before


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ToolError(f"cannot read {path}: {exc.strerror or exc}") from None


def _json(line: str, n: int) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        raise ToolError(f"archive line {n}: not JSON") from None
