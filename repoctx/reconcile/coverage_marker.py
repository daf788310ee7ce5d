"""reconcile/coverage_marker — the store-local note of the coverage data file last ingested.

``{size, mtimeNs, sha256, report}``: the data file's stamp and what ingesting it gave
(``CoverageReport.as_json``). A pass whose data file still has the noted stat has no
coverage work, which this module decides with one ``stat`` and nothing else imported.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from repoctx.store import Store


def coverage_marker_key(store: Store) -> str:
    """The marker's store-local name."""
    return f"coverage/{store.repo_id}"


def marker(store: Store) -> dict[str, Any] | None:
    """The marker, or None before any data file was ingested."""
    return store.trees.get_local(coverage_marker_key(store))


def settled(store: Store, data_file: Path) -> tuple[bool, dict[str, Any] | None]:
    """``(True, report)`` when there is nothing to ingest: no data file and none noted
    (report None), or the noted one unchanged by stat (its report, not ``ingested``);
    ``(False, None)`` otherwise."""
    noted = marker(store)
    try:
        st = os.stat(data_file)
    except OSError:
        return noted is None, None
    if noted is not None and (noted["size"], noted["mtimeNs"]) == (st.st_size, st.st_mtime_ns):
        return True, {**noted["report"], "ingested": False}
    return False, None
