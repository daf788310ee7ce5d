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
