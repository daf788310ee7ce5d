"""encode_all: the same rows in process and over fresh workers, in order; ordered_map:
results in order, over worker processes for many items, in process for few."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from repoctx.contextpull.sections.documents import Definition, Section, SourceDocument
from repoctx.contextpull.write import fresh_workers, pool
from repoctx.contextpull.write.pool import IN_FLIGHT, encode_all, ordered_map
from repoctx.contextpull.write.records import DocumentRows
from repoctx.errors import ContextPullError

DOCS = [
    SourceDocument(f"d{i:03d}.md", f"# Doc {i}\n\nBody {i} is long enough to stay.".encode())
    for i in range(30)
]
REUSED = DocumentRows("r.md", "0" * 64, 1, "R", None, None, "markdown", "t",
                      (Section("R", 1, "prose", "# R"),), reused=True)  # fmt: skip
CODE = b"def f():\n    return 1\n\n\ndef g():\n    return 2\n"


class Splitting:
    """A definitions source that splits: its portions are asked in the workers."""

    def __init__(self) -> None:
        self.portioned: list[list[str]] = []

    def portion(self, items: list[pool.Item]) -> tuple[list[pool.Item], Splitting]:
        self.portioned.append([item.path for item in items])
        return items, self

    def __call__(self, path: str, data: bytes) -> tuple[Definition, ...] | None:
        if not path.endswith(".py"):
            return None
        return (Definition("f", "function", 1, 2), Definition("g", "function", 5, 6))


@pytest.fixture
def small_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool, "POOL_MIN_DOCUMENTS", 4)
    monkeypatch.setattr(pool, "CHUNK_DOCUMENTS", 3)


def items() -> list[pool.Item]:
    return [*DOCS[:10], REUSED, SourceDocument("m.py", CODE, tokens=5), *DOCS[10:]]


@pytest.mark.usefixtures("small_pool")
def test_workers_give_the_same_rows_in_order() -> None:
    alone = list(encode_all(items(), 2000, "t", Splitting(), workers=0))
    source = Splitting()
    pooled = list(encode_all(items(), 2000, "t", source, workers=2))
    assert pooled == alone
    assert [d.path for d in pooled] == [i.path for i in items()]
    # One portion per chunk, each read as the window reached it, in order.
    assert source.portioned == [[i.path for i in items()[n : n + 3]]
                                for n in range(0, len(items()), 3)]
    code = next(d for d in pooled if d.path == "m.py")
    assert [row[4] for row in code.side_sections] == ["f", "g"] and code.side_document[1] == 5
    assert pooled[10].reused and pooled[10].n_sections == 1


@pytest.mark.usefixtures("small_pool")
def test_a_plain_callable_is_called_here_not_in_workers() -> None:
    calls: list[str] = []

    def definitions_for(path: str, data: bytes) -> tuple[Definition, ...] | None:
        calls.append(path)
        return None

    list(encode_all(items(), 2000, "t", definitions_for, workers=2))
    assert sorted(calls) == sorted(i.path for i in items() if isinstance(i, SourceDocument))


class Broken(Splitting):
    def __call__(self, path: str, data: bytes) -> tuple[Definition, ...] | None:
        if path.endswith(".py"):
            raise ValueError(path)
        return None


@pytest.mark.usefixtures("small_pool")
def test_a_worker_error_reaches_the_caller() -> None:
    with pytest.raises(ValueError, match="x.py"):
        list(encode_all([*DOCS, SourceDocument("x.py", CODE)], 2000, "t", Broken(), workers=2))


def test_small_exports_stay_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pool(*args: object, **kwargs: object) -> None:
        raise AssertionError("a small export forks no workers")

    monkeypatch.setattr(fresh_workers, "ProcessPoolExecutor", no_pool)
    assert len(items()) < pool.POOL_MIN_DOCUMENTS
    assert len(list(encode_all(items(), 2000, "t", workers=4))) == len(items())


class Dying(Splitting):
    def __call__(self, path: str, data: bytes) -> tuple[Definition, ...] | None:
        if path.endswith(".py"):
            os._exit(3)  # a worker killed mid-export
        return None


@pytest.mark.usefixtures("small_pool")
def test_a_dead_worker_is_a_contextpull_error() -> None:
    with pytest.raises(ContextPullError, match="worker died"):
        list(encode_all([*DOCS, SourceDocument("x.py", CODE)], 2000, "t", Dying(), workers=2))


@pytest.mark.usefixtures("small_pool")
def test_meanwhile_runs_beside_the_workers_and_is_over_at_the_end() -> None:
    calls: list[str] = []
    pooled = encode_all(items(), 2000, "t", Splitting(), workers=2,
                        meanwhile=lambda: calls.append("pooled"))  # fmt: skip
    assert len(list(pooled)) == len(items()) and calls == ["pooled"]
    alone = encode_all(items(), 2000, "t", Splitting(), workers=0,
                       meanwhile=lambda: calls.append("alone"))  # fmt: skip
    assert len(list(alone)) == len(items()) and calls == ["pooled"]  # in process: not needed


# ordered_map's chunk and threshold, as the search-index build passes them.
MIN_ITEMS, CHUNK = 2000, 500


def _square_and_pid(n: int) -> tuple[int, int]:
    return n * n, os.getpid()


def _die_on_seven(n: int) -> int:
    if n == 7 and os.getpid() != PARENT:
        os._exit(3)  # a worker killed mid-task
    return n


# The test process's pid, the same in the workers (they start fresh and import this module).
PARENT = int(os.environ.setdefault("REPOCTX_TEST_POOL_PARENT", str(os.getpid())))


def _ordered_map(function, items, workers):  # type: ignore[no-untyped-def]
    return ordered_map(function, items, chunk=CHUNK, min_items=MIN_ITEMS, workers=workers)


def test_ordered_map_sends_many_items_to_workers_and_keeps_their_order() -> None:
    items = list(range(MIN_ITEMS + 123))
    results = list(_ordered_map(_square_and_pid, iter(items), workers=2))
    assert [item for item, _ in results] == items
    assert [square for _, (square, _) in results] == [n * n for n in items]
    assert {pid for _, (_, pid) in results} - {os.getpid()}  # computed in other processes


def test_ordered_map_takes_items_from_their_iterable_as_results_are_taken() -> None:
    taken = []

    def counted():  # type: ignore[no-untyped-def]
        for n in range(MIN_ITEMS * 4):
            taken.append(n)
            yield n

    results = _ordered_map(_square_and_pid, counted(), workers=2)
    next(results)
    # The first result needs the head and a window of chunks, not every item.
    assert len(taken) <= MIN_ITEMS + CHUNK * IN_FLIGHT * 2 + CHUNK
    assert len(list(results)) == MIN_ITEMS * 4 - 1


def test_ordered_map_keeps_few_items_or_one_worker_in_process() -> None:
    few = _ordered_map(_square_and_pid, range(10), workers=2)
    assert {pid for _, (_, pid) in few} == {os.getpid()}
    many = _ordered_map(_square_and_pid, range(MIN_ITEMS), workers=1)
    assert {pid for _, (_, pid) in many} == {os.getpid()}


def test_a_dead_ordered_map_worker_is_a_contextpull_error() -> None:
    with pytest.raises(ContextPullError, match="worker died"):
        list(_ordered_map(_die_on_seven, range(MIN_ITEMS), workers=2))


# An unguarded user script (no ``if __name__ == "__main__":``) exporting a directory big
# enough for the search-index build to start fresh workers (``MIN_DOCUMENTS`` and more).
_UNGUARDED = """
import sys
from pathlib import Path
from repoctx.contextpull import export_directory
from repoctx.retrieval import build_search_index
from repoctx.retrieval.index.tables import MIN_DOCUMENTS
root, out = Path(sys.argv[1]), Path(sys.argv[2])
with open(root.parent / "runs.log", "a") as log:
    print("script body ran", file=log)
for i in range(MIN_DOCUMENTS + 40):
    (root / f"mod{i:03d}.py").write_text(f"def f{i}(x):\\n    return x + {i}\\n")
report = export_directory(root, out, finalize=build_search_index)
print(report.documents)
"""


def test_an_unguarded_script_exports_through_fresh_workers_and_runs_once(tmp_path) -> None:
    """A fresh worker must not run the caller's main script again (the script's body would
    run once per worker and the export fail: its workers cannot start workers)."""
    import sqlite3
    import subprocess
    import sys

    script, root, out = tmp_path / "script.py", tmp_path / "tree", tmp_path / "out.sqlite"
    script.write_text(_UNGUARDED)
    root.mkdir()
    done = subprocess.run([sys.executable, str(script), str(root), str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "runs.log").read_text().count("script body ran") == 1
    with sqlite3.connect(out) as conn:
        (symbols,) = conn.execute("SELECT count(*) FROM repoctx_search_symbols").fetchone()
    assert int(done.stdout) == symbols == 240  # every file through the workers' search build


# A process mapping slow items over fresh workers; it prints its pid and its workers' pids.
_MAPPER = """
import os, sys, time
from repoctx.contextpull.write.pool import ordered_map
import tests.contextpull.write.test_pool as here
for _, pid in ordered_map(here.slow_pid, range(400), chunk=1, min_items=2, workers=2):
    print(pid, flush=True)
"""


def slow_pid(_: int) -> int:
    import time

    time.sleep(0.05)
    return os.getpid()


def _family(pid: int) -> set[int]:
    """Every living descendant of ``pid`` (``/proc/PID/task/TID/children``)."""
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for task in os.listdir(f"/proc/{parent}/task"):
            with open(f"/proc/{parent}/task/{task}/children") as fh:
                children = {int(child) for child in fh.read().split()}
            todo += children - found
            found |= children
    return found


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads /proc")
def test_a_killed_mapper_leaves_no_worker_nor_server_behind() -> None:
    import subprocess
    import sys
    import time

    from tests.reconcile.test_workers import _alive

    mapper = subprocess.Popen([sys.executable, "-c", _MAPPER], stdout=subprocess.PIPE,
                              text=True, cwd=Path(__file__).resolve().parents[3])
    workers = {int(mapper.stdout.readline()) for _ in range(20)}
    left = _family(mapper.pid) | workers  # the server and the workers it forked
    assert workers and mapper.pid not in workers
    mapper.kill()
    mapper.wait()
    deadline = time.monotonic() + 20
    while any(_alive(pid) for pid in left) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in left if _alive(pid)], "workers outlived their killed mapper"
