"""tools/status: index status from the root node and status file; health."""

from repoctx.reconcile import write_status, writer_lock
from repoctx.tools.status import health, index_status


def test_a_finished_index_is_ready_with_counts(shop):
    got = index_status(shop)
    assert (got["repoId"], got["status"], got["phase"]) == ("shop", "ready", None)
    assert (got["files"], got["symbols"]) == (5, 8)
    assert got["counters"]["added"] == 5 and "total" in got["timings"]


def test_a_running_index_reports_its_phase_and_a_failure_its_error(fresh_shop):
    write_status(fresh_shop.store.path, {"status": "indexing", "phase": "project"})
    with writer_lock(fresh_shop.store.path):
        got = index_status(fresh_shop)
    assert (got["status"], got["phase"]) == ("indexing", "project")
    write_status(fresh_shop.store.path, {"status": "failed", "lastError": "disk full"})
    got = index_status(fresh_shop)
    assert (got["status"], got["phase"], got["lastError"]) == ("failed", None, "disk full")


def test_health(shop):
    got = health(shop)
    assert got["ok"] is True and got["store"]["replicaId"] == "r1"
    assert got["export"]["schemaVersion"]
    assert set(got["versions"]) == {"repoctx", "python", "lmdb", "sqlite"}
    assert all(isinstance(v, str) for v in got["versions"].values())


def test_health_without_an_export_is_not_ok(fresh_shop):
    fresh_shop.export.unlink()
    got = health(fresh_shop)
    assert got["ok"] is False and got["store"]["ok"] is True
    assert "no ContextPull export" in got["export"]["error"]


def test_the_index_says_how_old_it_is_through_a_running_pass(fresh_shop):
    import time

    from repoctx.tools.status import index_age

    write_status(fresh_shop.store.path, {"status": "ready", "finishedAt": time.time() - 30})
    assert 29 <= index_status(fresh_shop)["ageSeconds"] <= 60
    write_status(fresh_shop.store.path, {"status": "indexing", "phase": "walk"})
    assert 29 <= index_age(fresh_shop) <= 60  # still the committed pass's age


def test_search_age_is_at_least_the_exports_while_a_newer_one_is_written(fresh_shop):
    import os
    import time

    from repoctx.tools.status import index_age

    write_status(fresh_shop.store.path, {"status": "ready", "finishedAt": time.time() - 5})
    assert 4 <= index_age(fresh_shop) <= 30  # the export is newer than the pass
    old = time.time() - 40
    os.utime(fresh_shop.export, (old, old))  # a pass finished, its export not yet
    assert 39 <= index_age(fresh_shop) <= 70
