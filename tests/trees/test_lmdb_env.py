"""trees/lmdb_env: one environment, every named tree opened once, errors translated."""

import lmdb
import pytest

from repoctx.errors import StoreBusyError, StoreIOError
from repoctx.trees import LOCAL_TREE, TREES, error_for, lmdb_errors
from repoctx.trees.lmdb_env import _ERRORS, MAX_DBS, grow, open_env


def test_exactly_the_named_trees_of_the_design(store):
    names = {t.name for t in store.stats()}
    assert names == {t.name for t in TREES} | {LOCAL_TREE}
    assert len(names) == 13 and len(names) <= MAX_DBS
    with store.trees.env.begin() as txn:  # records never go in the main database
        main = {k for k, _ in txn.cursor()}
    assert main == {n.encode() for n in names}


def test_every_lmdb_exception_is_mapped():
    classes = {c for c in vars(lmdb).values() if isinstance(c, type) and issubclass(c, lmdb.Error)}
    mapped = {c for c, _, _ in _ERRORS}
    for cls in classes:
        assert any(issubclass(cls, m) for m in mapped), cls
    assert isinstance(error_for(lmdb.DiskError("x")), StoreIOError)
    assert isinstance(error_for(lmdb.ReadersFullError("x")), StoreBusyError)

def test_grow_doubles_the_map(store):
    before = store.trees.env.info()["map_size"]
    grow(store.trees.env)
    assert store.trees.env.info()["map_size"] == 2 * before


def test_lmdb_and_os_errors_become_store_errors(tmp_path):
    with pytest.raises(StoreIOError, match="the store's map is full") as caught, lmdb_errors():
        raise lmdb.MapFullError("x")
    assert isinstance(caught.value.__cause__, lmdb.MapFullError)
    with pytest.raises(StoreIOError, match="cannot use the store files"), lmdb_errors():
        raise PermissionError("denied")


def test_read_only_open_of_an_absent_directory_fails_as_a_store_error(tmp_path):
    with pytest.raises(StoreIOError):
        open_env(tmp_path / "missing", readonly=True)


def test_a_read_only_view_opens_every_tree_the_file_has(tmp_path):
    env, dbs = open_env(tmp_path / "lmdb")
    env.close()
    env, dbs = open_env(tmp_path / "lmdb", readonly=True)
    try:
        assert set(dbs) == {t.name for t in TREES} | {LOCAL_TREE}
    finally:
        env.close()
