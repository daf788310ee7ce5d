"""Shared fixtures: a fresh store in a temp directory, and record helpers."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from repoctx import open_store
from repoctx.crdt import lww_register, record
from repoctx.crdt.record import Record
from repoctx.store import Store
from tests.retrieval import context_repo, symbol_repo
from tests.retrieval.small_repo import build


@pytest.fixture(autouse=True, scope="session")
def _no_default_embedder() -> Iterator[None]:
    """The suite behaves alike with and without model weights installed: no embedder
    unless a test asks for one (session-wide, before any module fixture builds a store;
    the environment reaches subprocesses too)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("REPOCTX_DEFAULT_EMBEDDER", "none")
        yield


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = open_store(tmp_path / "repo", repo_id="demo", replica_id="r-test")
    yield s
    s.close()


def lww_record(store: Store, **values: object) -> Record:
    """A delta writing each value as an LWW register at a fresh tick."""
    tick = store.tick()
    states = {name: lww_register.set_value(lww_register.empty(), v, tick, store.replica_id)
              for name, v in values.items()}
    return record.write(states, tick)


def loaded_by(statement: str, modules: tuple[str, ...]) -> list[str]:
    """Which of ``modules`` a fresh interpreter has imported after running ``statement``."""
    code = f"import sys; {statement}; print(sorted(m for m in {modules!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return eval(out)  # the printed list of names


# The small indexed repositories the read-tool tests share (read-only per module).
@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    ws = build(tmp_path_factory.mktemp("shop"))
    yield ws
    ws.close()


@pytest.fixture
def fresh_shop(tmp_path):
    """A workspace of its own, for tests that edit the working tree."""
    ws = build(tmp_path)
    yield ws
    ws.close()


@pytest.fixture(scope="module")
def cart_ws(tmp_path_factory):
    """The cart repository of ``context_repo``, indexed and exported (one per module)."""
    ws = context_repo.build(tmp_path_factory.mktemp("cart") / "repo")
    yield ws
    ws.close()


@pytest.fixture(scope="module")
def pkg_ws(tmp_path_factory):
    """``symbol_repo``'s package, indexed and exported (one per module)."""
    ws = symbol_repo.build(tmp_path_factory.mktemp("pkg"))
    yield ws
    ws.close()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 3 MiB tmpfs mounted at ``tmp_path/disk``: a real disk that fills up (skipped
    where mounting is not permitted, e.g. not root or in an unprivileged container)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(disk)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({mounted.stderr.strip()})")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def fill_disk(disk: Path, leave_bytes: int) -> None:
    """Fill ``disk`` until ``leave_bytes`` are left free (one filler file)."""
    import os

    filler = disk / "filler"
    filler.unlink(missing_ok=True)
    info = os.statvfs(disk)
    with filler.open("wb") as out:
        out.write(b"\0" * max(0, info.f_bavail * info.f_frsize - leave_bytes))
