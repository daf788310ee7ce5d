"""reconcile/status: the status file beside the store, written whole."""

from repoctx.reconcile import read_status, write_status
from repoctx.reconcile.status import STATUS_NAME


def test_write_then_read(tmp_path):
    write_status(tmp_path, {"status": "indexing", "phase": "walk"})
    assert read_status(tmp_path) == {"status": "indexing", "phase": "walk"}
    write_status(tmp_path, {"status": "ready"})
    assert read_status(tmp_path) == {"status": "ready"}
    assert [p.name for p in tmp_path.iterdir()] == [STATUS_NAME]  # no temp file left


def test_missing_or_unreadable_status_is_empty(tmp_path):
    assert read_status(tmp_path / "nowhere") == {}
    (tmp_path / STATUS_NAME).write_text('{"status": "rea')
    assert read_status(tmp_path) == {}
    (tmp_path / STATUS_NAME).unlink()
    (tmp_path / STATUS_NAME).mkdir()  # not a file at all
    assert read_status(tmp_path) == {}


def test_the_finish_time_outlives_later_statuses_until_the_next_finish(tmp_path):
    from repoctx.reconcile.status import age_seconds

    assert age_seconds(read_status(tmp_path)) is None  # no pass ever finished
    write_status(tmp_path, {"status": "ready", "finishedAt": 1000.0})
    write_status(tmp_path, {"status": "indexing", "phase": "walk"})  # a pass under way
    assert read_status(tmp_path)["finishedAt"] == 1000.0
    write_status(tmp_path, {"status": "failed", "lastError": "boom"})
    assert age_seconds(read_status(tmp_path), now=1012.34) == 12.3
    write_status(tmp_path, {"status": "ready", "finishedAt": 2000.0})
    assert age_seconds(read_status(tmp_path), now=1999.0) == 0.0  # a clock step back
