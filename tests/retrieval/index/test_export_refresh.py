"""retrieval/index/export_refresh: `repoctx index` re-exports only when the export would differ."""

import os

import pytest

from repoctx import open_store
from repoctx.contextpull import Reader
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.retrieval import EXPORT_NAME, refresh_export
from tests.reconcile.helpers import write
from tests.retrieval.small_repo import FILES


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    write(root, FILES)
    return root


def index(root):
    """One `repoctx index` (pass, then refresh); returns the refresh's report or None."""
    with open_store(root, repo_id="shop") as store:
        reconcile_pass(store, root, PassOptions(workers=1))
        return refresh_export(store, root, store.path / EXPORT_NAME)


def export_of(root):
    return root / ".repoctx" / EXPORT_NAME


def test_an_unchanged_store_keeps_its_export_file(repo):
    assert index(repo).documents == len(FILES)
    before = os.stat(export_of(repo))
    assert index(repo) is None
    after = os.stat(export_of(repo))
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_an_edit_re_exports_and_the_export_shows_it(repo):
    index(repo)
    write(repo, {"shop/pricing.py": "def margin():\n    return 'wholesale'\n"})
    assert index(repo) is not None
    hits = Reader(export_of(repo)).search("wholesale")["hits"]
    assert [hit["doc"] for hit in hits] == ["shop/pricing.py"]


def test_a_deleted_or_replaced_export_is_written_again(repo):
    index(repo)
    export_of(repo).unlink()
    assert index(repo) is not None and export_of(repo).exists()
    os.utime(export_of(repo), ns=(1, 1))  # touched by someone else: no longer ours
    assert index(repo) is not None


def test_another_root_re_exports(repo, tmp_path):
    index(repo)
    with open_store(repo, repo_id="shop") as store:
        assert refresh_export(store, repo, store.path / EXPORT_NAME) is None
        os.symlink(repo, tmp_path / "alias")
        assert refresh_export(store, tmp_path / "alias", store.path / EXPORT_NAME) is None
        copy = tmp_path / "copy"
        write(copy, FILES)
        assert refresh_export(store, copy, store.path / EXPORT_NAME) is not None


def test_the_version_that_decides_a_re_export_is_the_installed_one():
    from importlib.metadata import version

    import repoctx

    assert repoctx.__version__ == version("repoctx")  # pyproject.toml's, read cheaply


def test_a_no_op_index_loads_neither_the_writer_nor_heavy_libraries(repo):
    """A no-op `repoctx index` pays for a freshness check, not for imports."""
    import time

    from repoctx.reconcile import walk_cache
    from tests.conftest import loaded_by

    index(repo)  # creates the store inside the repository: its folder changes
    time.sleep(walk_cache.RACY_NS / 1e9 + 0.1)  # folders old enough for the walk cache
    index(repo)  # settles the walk cache: the next pass is a no-op by stat alone
    heavy = ("numpy", "pycrdt", "tiktoken", "tree_sitter", "sqlite3", "msgspec",
             "multiprocessing", "pathspec", "importlib.metadata",
             "repoctx.contextpull.write.writer",
             "repoctx.retrieval.index.tables", "repoctx.reconcile.analyse")
    run = ("import io; from repoctx.cli import main; out, sys.stdout = sys.stdout, io.StringIO();"
           f" main(['index', {str(repo)!r}, '--json']);"
           " assert '\"unchanged\":true' in sys.stdout.getvalue(); sys.stdout = out")
    assert loaded_by(run, heavy) == []


def test_a_file_changed_by_someone_else_or_marked_damaged_is_written_whole(repo):
    from repoctx.retrieval.index.export_refresh import DAMAGED_SUFFIX, mark_damaged

    index(repo)
    write(repo, {"shop/pricing.py": "def margin():\n    return 'wholesale'\n"})
    assert index(repo).patched  # our own file: patched
    os.utime(export_of(repo), ns=(1, 1))
    write(repo, {"shop/pricing.py": "def margin():\n    return 'retail'\n"})
    assert not index(repo).patched  # touched by someone else: nothing lent from it
    mark_damaged(export_of(repo))
    report = index(repo)
    assert report is not None and not report.patched
    assert not export_of(repo).with_name(EXPORT_NAME + DAMAGED_SUFFIX).exists()
    assert index(repo) is None
