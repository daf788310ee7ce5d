"""reconcile/coverage_marker: a pass has coverage work only when the data file's stat moved."""

import os

from repoctx.reconcile import coverage_marker as cm


def note(store, size, mtime_ns, report):
    with store.batch() as batch:
        batch.put_local(cm.coverage_marker_key(store), {"size": size, "mtimeNs": mtime_ns,
                                                        "sha256": "x", "report": report})


def test_no_data_file_and_nothing_noted_is_settled(store, tmp_path):
    assert cm.marker(store) is None
    assert cm.settled(store, tmp_path / ".coverage") == (True, None)


def test_a_new_or_changed_data_file_is_work(store, tmp_path):
    data = tmp_path / ".coverage"
    data.write_bytes(b"data")
    assert cm.settled(store, data) == (False, None)
    st = data.stat()
    note(store, st.st_size, st.st_mtime_ns, {"files": 3})
    assert cm.settled(store, data) == (True, {"files": 3, "ingested": False})
    os.utime(data, ns=(1, st.st_mtime_ns + 1))
    assert cm.settled(store, data) == (False, None)


def test_a_data_file_gone_after_an_ingestion_is_work(store, tmp_path):
    note(store, 4, 1, {"files": 3})
    assert cm.settled(store, tmp_path / ".coverage") == (False, None)
    assert cm.coverage_marker_key(store) == "coverage/demo"
