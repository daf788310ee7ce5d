"""The settled mark: a back-fill skips its gap scan while nothing it reads has changed."""

import importlib
import time

import pytest

from repoctx.crdt import max_register, record
from repoctx.memory.entries import remember
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.vectors import backfill, settled, sources, space_of
from repoctx.vectors.ann import ann_index
from repoctx.vectors.records import coverage
from tests.reconcile.helpers import write


@pytest.fixture
def no_scan(monkeypatch):
    """Make a gap scan, full or from the ``caught_up`` mark, fail the test: a settled
    back-fill must not run one."""

    def scan(*args, **kwargs):
        raise AssertionError("the gap scan ran")

    def forbid() -> None:
        module = importlib.import_module("repoctx.vectors.backfill")  # not the function
        monkeypatch.setattr(module, "live_sources", scan)
        monkeypatch.setattr(module, "live_since", scan)  # the scan from a caught_up mark

    return forbid


def settle(store, embedder):
    first = backfill(store, embedder)
    assert first.embedded > 0 and not first.settled  # embedded: written after its scan
    quiet = backfill(store, embedder)  # scans, finds nothing, leaves the mark
    assert not quiet.settled and (quiet.embedded, quiet.retired) == (0, 0)
    return quiet


def test_a_no_op_backfill_skips_the_scan_and_reports_what_the_last_one_found(
        indexed, embedder, no_scan):
    store = indexed.store
    quiet = settle(store, embedder)
    writes = store.trees.writes
    no_scan()
    again = backfill(store, embedder)
    assert again.settled and again.live == quiet.live > 0 and again.gap_rows == 0
    assert (again.embedded, again.retired, again.remaining) == (0, 0, 0)
    assert store.trees.writes == writes
    assert again.as_json()["settled"] is True


def test_a_changed_file_unsettles_the_mark(indexed, embedder):
    store, root = indexed.store, indexed.root
    settle(store, embedder)
    write(root, {"README.md": "# Payments\n\nShipping is free above fifty euros.\n"})
    reconcile_pass(store, root, PassOptions(workers=1))
    after = backfill(store, embedder)
    assert not after.settled and after.embedded == 1


def test_a_memory_write_unsettles_the_mark(indexed, embedder):
    store = indexed.store
    settle(store, embedder)
    remember(store, "ops", "deploy", title="Deploy freeze", body="No deploys on Fridays.")
    after = backfill(store, embedder)
    assert not after.settled and after.embedded == 1


def assert_lapses_at(store, embedder, now: int, expiry: int) -> None:
    """The mark a back-fill at ``now`` leaves holds until ``expiry``, when the source that
    expires then is retired."""
    backfill(store, embedder, now_ms=now)
    backfill(store, embedder, now_ms=now)  # leaves the mark, valid until the expiry
    assert backfill(store, embedder, now_ms=expiry - 59_000).settled
    lapsed = backfill(store, embedder, now_ms=expiry + 1_000)
    assert not lapsed.settled and lapsed.retired == 1  # the expired source's vectors go


def test_the_mark_lapses_when_a_memory_entry_expires(indexed, embedder):
    store = indexed.store
    now = int(time.time() * 1000)
    remember(store, "ops", "freeze", title="Freeze", body="Until Monday.", ttl_seconds=60,
             now_ms=now)
    assert_lapses_at(store, embedder, now, now + 60_000)


def test_the_mark_lapses_when_a_file_node_expires(indexed, embedder):
    """A file node may carry an expiry (any record may): it lapses without a write, so
    the mark holds only until then, as for a memory entry."""
    store = indexed.store
    now = int(time.time() * 1000)
    with store.batch() as batch:
        batch.merge(store.key("file", "README.md"), record.write(
            {record.EXPIRES: max_register.raise_to(max_register.EMPTY, now + 60_000)},
            store.tick()))
    assert_lapses_at(store, embedder, now, now + 60_000)


def test_another_space_or_more_kinds_scan_again(indexed, embedder):
    store = indexed.store
    settle(store, embedder)
    assert not backfill(store, embedder, kinds=("file", "symbol", "mem", "other")).settled
    mark = settled.holds(store, space_of(embedder), ("file",))
    assert mark is not None and mark.space == space_of(embedder)
    assert settled.holds(store, "another-space", ("file",)) is None


def test_a_mark_left_before_code_file_windows_changed_does_not_hold(indexed, embedder,
                                                                     monkeypatch):
    """Which files are sources (``CODE_FILE_WINDOWS``) changes with no write."""
    store = indexed.store
    settle(store, embedder)
    monkeypatch.setattr(sources, "CODE_FILE_WINDOWS", True)
    after = backfill(store, embedder)
    assert not after.settled and after.embedded > 0


def test_a_write_after_the_scan_leaves_a_mark_that_does_not_hold(indexed, embedder):
    """The mark keeps the generations its scan saw: a later write to any tree it reads
    (here a retrain of the index, as a back-fill may do after its scan) makes the next
    back-fill scan."""
    store = indexed.store
    settle(store, embedder)
    assert settled.holds(store, space_of(embedder), ("file",)) is not None
    ann_index.rebuild(store, space_of(embedder))
    assert settled.holds(store, space_of(embedder), ("file",)) is None


def test_a_mark_of_another_version_is_ignored(indexed, embedder):
    store = indexed.store
    settle(store, embedder)
    with store.batch() as batch:
        batch.put_local(settled.MARK.format(repo=store.repo_id), {"space": "x", "old": 1})
    assert settled.holds(store, space_of(embedder), ("file",)) is None
    assert not backfill(store, embedder).settled


def test_a_backfill_that_did_all_it_found_leaves_the_mark(indexed, embedder, no_scan):
    """The first back-fill after an edit's needs no scan to find it has nothing to do."""
    store, root = indexed.store, indexed.root
    settle(store, embedder)
    write(root, {"README.md": "# Payments\n\nShipping is free above fifty euros.\n"})
    reconcile_pass(store, root, PassOptions(workers=1))
    after = backfill(store, embedder)
    assert after.embedded == 1 and not after.retrained and not after.settled
    no_scan()
    again = backfill(store, embedder)
    assert again.settled and again.live == after.live and again.embedded == 0


def test_a_digest_invalidated_after_the_last_write_is_rebuilt(indexed, embedder,
                                                             monkeypatch):
    """A sync that brings membership in invalidates the digest; one that lands between a
    back-fill's last write and the mark it then leaves must not be settled over."""
    store, root = indexed.store, indexed.root
    settle(store, embedder)
    write(root, {"README.md": "# Payments\n\nShipping is free above fifty euros.\n"})
    reconcile_pass(store, root, PassOptions(workers=1))
    module = importlib.import_module("repoctx.vectors.backfill")
    retrain = module._maybe_retrain

    def then_a_sync(store, *args):
        retrain(store, *args)
        with store.batch() as batch:
            coverage.invalidate(batch, store.repo_id, store.tick(), store.replica_id)

    monkeypatch.setattr(module, "_maybe_retrain", then_a_sync)
    assert backfill(store, embedder).embedded == 1
    monkeypatch.setattr(module, "_maybe_retrain", retrain)
    again = backfill(store, embedder)
    assert not again.settled and again.digest_rebuilt


def test_a_settled_no_op_index_imports_no_numpy(tmp_path, monkeypatch):
    """`repoctx index` with the static embedder and nothing to do loads neither numpy nor
    the embedder's encoder nor the memory layer, in a real process."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from repoctx.vectors.embedders.static import CACHE_ENV

    from .conftest import make_repo
    from .tiny_model import build

    monkeypatch.setenv("REPOCTX_MODEL_DIR", str(build(tmp_path / "tiny")))
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    root = tmp_path / "repo"
    make_repo(root, 20)
    # the CLI's own entry point, then the modules it loaded (it ends with os._exit)
    code = ("import json, sys; from repoctx.cli import main\n"
            "try:\n    main.main(sys.argv[2:])\nexcept SystemExit:\n    pass\n"
            "open(sys.argv[1], 'w').write(json.dumps(sorted(sys.modules)))")
    args = ["index", str(root), "--repo-id", "demo", "--store", str(tmp_path / "store"),
            "--json", "--embedder", "static"]
    runs = []
    for n in range(3):
        done = subprocess.run([sys.executable, "-c", code, str(tmp_path / f"m{n}"), *args],
                              capture_output=True, text=True, check=True,
                              cwd=Path(__file__).resolve().parents[2])
        runs.append((json.loads(done.stdout)["vectors"],
                     set(json.loads((tmp_path / f"m{n}").read_text()))))
    (first, loaded_first), (last, loaded) = runs[0], runs[-1]
    assert first["embedded"] > 0 and "numpy" in loaded_first  # the export embeds
    assert last["settled"] and last["embedder"] == "static" and last["embedded"] == 0
    assert "repoctx.vectors.backfill" in loaded
    assert not {"numpy", "repoctx.vectors.embedders.bert", "repoctx.memory"} & loaded
