"""trees/data_file: data.mdb read through its meta pages before LMDB maps it (a
truncated file mapped whole kills the process by SIGBUS)."""

from __future__ import annotations

import os

import pytest

from repoctx.errors import StoreFormatError
from repoctx.trees import Trees
from repoctx.trees.data_file import DATA_FILE, check_data_file, metas, problem, salvage_copy


@pytest.fixture
def env_dir(store):
    with store.batch() as batch:
        for n in range(300):
            batch.put_local(f"filler/{n:04}", "x" * 200)
    directory = store.trees.path
    store.close()
    return directory


def test_a_sound_file_has_two_valid_metas_and_no_problem(env_dir):
    found = metas(env_dir / DATA_FILE)
    assert sorted(m.page for m in found) == [0, 1]
    assert all(m.page_size == 4096 for m in found)
    assert max(m.needed_bytes for m in found) <= (env_dir / DATA_FILE).stat().st_size
    assert problem(env_dir / DATA_FILE) is None


def test_a_truncated_file_is_refused_before_mapping_naming_file_and_next_step(env_dir):
    data = env_dir / DATA_FILE
    os.truncate(data, data.stat().st_size // 2)
    with pytest.raises(StoreFormatError, match="truncated") as caught:
        check_data_file(env_dir)
    assert str(data) in str(caught.value) and "repoctx repair" in str(caught.value)
    with pytest.raises(StoreFormatError, match="truncated"):
        Trees(env_dir)  # the real opening path: an error, never a signal


def test_a_damaged_meta_page_is_named_and_a_rescue_copy_rebuilds_it(env_dir, tmp_path):
    data = env_dir / DATA_FILE
    raw = bytearray(data.read_bytes())
    raw[4096 + 16] ^= 0xFF  # meta page 1's magic
    data.write_bytes(bytes(raw))
    assert "meta page 1" in problem(data)
    changes = salvage_copy(env_dir, tmp_path / "copy")
    assert changes == ["meta page 1 rewritten from meta page 0"]
    assert problem(tmp_path / "copy" / DATA_FILE) is None


def test_a_rescue_copy_of_a_truncated_file_is_padded_to_its_last_page(env_dir, tmp_path):
    data = env_dir / DATA_FILE
    size = data.stat().st_size
    os.truncate(data, size - 8192)
    changes = salvage_copy(env_dir, tmp_path / "copy")
    assert changes == [f"padded from {size - 8192} to {size} bytes"]
    assert problem(tmp_path / "copy" / DATA_FILE) is None
    assert data.stat().st_size == size - 8192  # the original is left as it was


def test_a_meta_page_reaching_past_any_real_file_is_damaged_and_rebuilt(env_dir, tmp_path):
    data = env_dir / DATA_FILE
    newest = max(metas(data), key=lambda m: m.txnid)
    raw = bytearray(data.read_bytes())
    raw[newest.page * 4096 + 136 + 7] ^= 0x40  # a high bit of its mm_last_pg: page ~2^62
    data.write_bytes(bytes(raw))
    assert f"meta page {newest.page}" in problem(data)
    changes = salvage_copy(env_dir, tmp_path / "copy")  # was: OverflowError padding to 2^74
    assert changes == [f"meta page {newest.page} rewritten from meta page {1 - newest.page}"]
    assert problem(tmp_path / "copy" / DATA_FILE) is None


def test_neither_meta_valid_cannot_be_rescued(env_dir, tmp_path):
    (env_dir / DATA_FILE).write_bytes(b"\0" * 16384)
    assert "both meta pages" in problem(env_dir / DATA_FILE)
    with pytest.raises(StoreFormatError, match="beyond rescue"):
        salvage_copy(env_dir, tmp_path / "copy")


def test_an_empty_file_is_left_to_lmdb(tmp_path):
    (tmp_path / DATA_FILE).write_bytes(b"")
    assert problem(tmp_path / DATA_FILE) is None
