"""reconcile/lock: one indexer per store; --no-wait refuses at once, naming the holder."""

import os

import pytest

from repoctx.errors import StoreBusyError
from repoctx.reconcile import is_locked, writer_lock


def test_is_locked_only_while_held(tmp_path):
    store_dir = tmp_path / "store"
    assert is_locked(store_dir) is False  # no lock file yet
    with writer_lock(store_dir):
        assert is_locked(store_dir) is True
        assert (store_dir / "index.lock").read_text() == str(os.getpid())
    assert is_locked(store_dir) is False


def test_no_wait_refuses_naming_the_holder(tmp_path):
    with (writer_lock(tmp_path), pytest.raises(StoreBusyError) as caught,
          writer_lock(tmp_path, wait=False)):
        pass
    message = str(caught.value)
    assert f"another repoctx index (pid {os.getpid()}) is writing {tmp_path}" in message
    assert "without --no-wait" in message
    with writer_lock(tmp_path, wait=False):  # free again
        assert is_locked(tmp_path)



def test_writers_share_the_repair_lock_and_a_repair_waits_for_them_then_names_the_store(tmp_path):
    from repoctx.reconcile import repair_lock, writers_lock

    busy = f"memory writes to the store at {tmp_path}"
    with (writers_lock(tmp_path), writers_lock(tmp_path, wait_seconds=0),  # writers share
          pytest.raises(StoreBusyError, match=busy), repair_lock(tmp_path, wait_seconds=0.1)):
        pass
    with (repair_lock(tmp_path, wait_seconds=0), pytest.raises(StoreBusyError, match="is busy"),
          writers_lock(tmp_path, wait_seconds=0.1)):
        pass
    with writers_lock(tmp_path, wait_seconds=0):  # free again
        pass
