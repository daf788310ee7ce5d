"""bench/_index_key: an index's cache key covers the code that builds it, and only that."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _index_key import PACKAGE, index_files, index_key  # noqa: E402


def test_the_key_covers_what_builds_an_index_and_not_what_reads_it():
    files = {p.relative_to(PACKAGE).as_posix() for p in index_files()}
    built = {"reconcile/reconcile_pass.py", "extract/languages/python.py", "trees/trees.py",
             "contextpull/write/writer.py", "retrieval/index/tables.py", "crdt/record.py",
             "retrieval/path_roles.py", "retrieval/query.py", "tokenizer.py"}
    assert built <= files
    read = {"retrieval/tuning.py", "retrieval/priors.py", "retrieval/bundle/packing.py",
            "retrieval/bundle/literals.py", "retrieval/search/task_text.py",
            "tools/registry.py", "server/mcp_server.py"}
    assert not read & files
    assert any(not p.endswith(".py") for p in files)  # package data counts too
    assert len(index_key()) == 12
