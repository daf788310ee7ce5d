"""The event filter judges a changed path exactly as the walk does."""

import os
import subprocess

import pytest

from repoctx.reconcile import EventFilter, walk
from tests.reconcile.helpers import write

FILES = {
    ".gitignore": "build/\n*.log\n!keep.log\n",
    "src/app.py": "x = 1\n",
    "src/.repoctxignore": "generated_*.py\n",
    "src/generated_a.py": "y = 2\n",
    "src/deep/mod.py": "z = 3\n",
    "src/deep/.gitignore": "*.tmp\n",
    "src/deep/scratch.tmp": "",
    "build/out.py": "",
    "notes.log": "",
    "keep.log": "",
    "docs/.contextpullignore": "draft.md\n",
    "docs/draft.md": "",
    "docs/guide.md": "",
    ".git/HEAD": "ref: refs/heads/main\n",
    "other/.repoctx/lmdb/data.mdb": "",
    "store/lmdb/data.mdb": "",
}


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    write(root, FILES)
    return root


def test_the_filter_wants_exactly_what_the_walk_lists(repo):
    listed = {f.path for f in walk(repo, store_dir=repo / "store").files}
    wants = EventFilter(repo, repo / "store")
    verdicts = {rel: wants.wants(str(repo / rel)) for rel in FILES}
    assert {rel for rel, wanted in verdicts.items() if wanted} == listed
    assert "keep.log" in listed and "src/deep/mod.py" in listed  # a negation re-includes


def test_the_store_git_and_paths_outside_the_root_are_never_wanted(repo, tmp_path):
    wants = EventFilter(repo, repo / "store")
    for path in (repo / "store", repo / "store" / "contextpull.sqlite", repo / ".git" / "index",
                 repo / "src" / ".repoctx" / "index.lock", repo, tmp_path / "elsewhere.py"):
        assert not wants.wants(str(path)), path


def test_a_store_outside_the_root_filters_nothing_of_the_tree(repo, tmp_path):
    wants = EventFilter(repo, tmp_path / "outside")
    assert wants.wants(str(repo / "store" / "lmdb" / "data.mdb"))  # content, not the store


def test_an_ignored_directory_hides_everything_under_it_new_files_included(repo):
    wants = EventFilter(repo, None)
    assert not wants.wants(str(repo / "build"))
    assert not wants.wants(str(repo / "build" / "new" / "file.py"))
    assert wants.wants(str(repo / "src" / "new.py"))  # not yet on disk: still a file


def test_editing_an_ignore_file_is_wanted_and_changes_later_verdicts(repo):
    wants = EventFilter(repo, None)
    assert wants.wants(str(repo / "src" / "app.py"))
    (repo / "src" / ".repoctxignore").write_text("app.py\n")
    assert wants.wants(str(repo / "src" / ".repoctxignore"))  # the walk lists ignore files
    assert not wants.wants(str(repo / "src" / "app.py"))
    assert {f.path for f in walk(repo, store_dir=None).files} >= {"src/generated_a.py"}


def test_git_excludes_apply_and_their_edit_is_wanted(repo):
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    exclude = repo / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    exclude.write_text("src/app.py\n")
    wants = EventFilter(repo, None)
    assert not wants.wants(str(repo / "src" / "app.py"))
    assert "src/app.py" not in {f.path for f in walk(repo, store_dir=None).files}
    assert wants.wants(str(exclude))  # inside .git, but it changes what the walk lists
    exclude.write_text("")
    assert wants.wants(str(exclude)) and wants.wants(str(repo / "src" / "app.py"))


def test_a_symlinked_root_is_judged_by_its_real_path(repo, tmp_path):
    link = tmp_path / "link"
    os.symlink(repo, link)
    wants = EventFilter(link, link / "store")
    assert wants.wants(str(repo / "src" / "app.py"))
    assert not wants.wants(str(repo / "store" / "lmdb" / "data.mdb"))
