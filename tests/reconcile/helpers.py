"""Shared by the reconcile tests: build repositories on disk, read stores as values."""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from repoctx.crdt import record
from repoctx.store import Store
from repoctx.trees import TREES, family_prefix


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body if isinstance(body, bytes) else body.encode())


def tree_values(store: Store) -> dict[str, dict[str, Any]]:
    """Every visible record of every tree as plain values, without causal metadata
    (ticks and dots differ between runs by design) and without the root node's note
    of which pass last changed it."""
    out: dict[str, dict[str, Any]] = {}
    with store.snapshot() as snap:
        for spec in TREES:
            rows = {}
            for key, rec in snap.scan_tree(spec):
                value = {k: v for k, v in record.value(rec).items()
                         if not k.startswith("$") and k != "last_pass"}
                rows[key] = value
            out[spec.name] = rows
    return out


def generated_repo(root: Path, n: int) -> None:
    """``n`` Python files across packages that reference each other, plus tests."""
    files: dict[str, str] = {}
    for i in range(n):
        pkg = f"pkg{i % 17}"
        files[f"{pkg}/__init__.py"] = ""
        if i % 10 == 9:
            files[f"tests/test_mod{i}.py"] = (
                f"from {pkg}.mod{i - 1} import Widget{i - 1}\n\n"
                f"class TestWidget{i - 1}:\n    def test_run(self):\n"
                f"        Widget{i - 1}().run()\n")
            continue
        files[f"{pkg}/mod{i}.py"] = (
            f'"""Module {i}."""\n\nLIMIT = {i}\n\n'
            f"class Widget{i}(Base{i % 5}):\n    \"\"\"Widget number {i}.\"\"\"\n\n"
            f"    def run(self, n: int) -> Result:\n        return helper{i}(n)\n\n"
            f"def helper{i}(n):\n    if n < 0:\n        raise ValueError(n)\n    return n\n")
    files["README.md"] = "# Generated\n\nA repository for tests.\n"
    write(root, files)


NOBODY = 65534


def as_nobody(function: Callable[[], object]) -> object:
    """Run `function` in a forked child without root's permission override."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop privileges, answer through the pipe, never return
        os.close(reader)
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            answer: object = function()
        except BaseException as exc:  # report anything to the parent
            answer = exc
        with os.fdopen(writer, "wb") as pipe:
            pipe.write(pickle.dumps(answer))
        os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as pipe:
        answer = pickle.loads(pipe.read())
    os.waitpid(pid, 0)
    return answer


def as_older_version(store: Store) -> None:
    """Rewrite ``store`` as a version before declaration digests wrote it: every
    declaration a 7-element tuple, no file node marked with the declaration wire version."""
    from repoctx.crdt import or_map
    from repoctx.reconcile.nodes import file_node, symbol_record

    with store.snapshot() as snap:
        symbols = list(snap.scan(family_prefix(store.repo_id, "symbol")))
    for key, rec in symbols:
        state = record.field_state(rec, symbol_record.DECL, or_map)
        for path, value in or_map.value(state).items():
            state = or_map.put(state, path, tuple(value[:7]), store.tick(), store.replica_id)
        store.merge(key, record.write({symbol_record.DECL: state}, store.tick()))
    for path, node in file_node.load_all(store).items():
        older = tuple(m for m in node.markers if m != file_node.DECLS)
        store.merge(store.key("file", path), file_node.node_delta(
            store.get(store.key("file", path)), replace(node, markers=older), store.tick(),
            store.replica_id))
