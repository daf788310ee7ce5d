"""reconcile/walk_paths: the verdict on given paths is the walk's, without walking."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from repoctx.reconcile.walk import walk
from repoctx.reconcile.walk_paths import seen

NAMES = ("a", "b", "build", "docs", ".git", ".repoctx", "x.py", "y.log")
PATTERNS = ("*.log", "build/", "docs", "!keep.log", "/a", "b/x.py", "**/y.log", "x.*", "a/")
IGNORES = (".gitignore", ".repoctxignore", ".contextpullignore")

paths = st.lists(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4).map("/".join),
                 min_size=1, max_size=12)
ignore_files = st.lists(st.tuples(st.lists(st.sampled_from(NAMES[:4]), max_size=2).map("/".join),
                                  st.sampled_from(IGNORES),
                                  st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=3)),
                        max_size=4)


def build(root: Path, files: list[str], ignores: list[tuple[str, str, list[str]]]) -> None:
    """Files (a path that is another's folder stays a folder) and ignore files."""
    for path in sorted(files, key=len, reverse=True):
        target = root / path
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists():
                target.write_text(path)
        except (NotADirectoryError, FileExistsError):
            continue  # a folder on the way is a file already
    for folder, name, lines in ignores:
        try:
            (root / folder).mkdir(parents=True, exist_ok=True)
            (root / folder / name).write_text("\n".join(lines) + "\n")
        except (NotADirectoryError, FileExistsError, IsADirectoryError):
            continue


@settings(max_examples=150, deadline=None)
@given(paths, ignore_files, st.integers(min_value=1, max_value=4), st.data())
def test_the_verdict_on_any_path_is_the_walks(files, ignores, depth, data):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, files, ignores)
        store = root / ".store"
        listed = {f.path: (f.size, f.mtime_ns)
                  for f in walk(root, store_dir=store, max_depth=depth).files}
        asked = sorted(set(files) | set(listed) | set(data.draw(paths)))
        assert seen(root, asked, store_dir=store, max_depth=depth) == {
            p: listed[p] for p in asked if p in listed}


def test_the_store_folder_and_git_are_never_seen(tmp_path):
    for path in ("store/a.py", ".git/config", "src/.git", "src/ok.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x")
    found = seen(tmp_path, ["store/a.py", ".git/config", "src/.git", "src/ok.py"],
                 store_dir=tmp_path / "store")
    assert set(found) == {"src/ok.py"}


def test_a_symlink_on_the_way_leaves_the_verdict_to_a_walk(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real/a.py").write_text("x")
    os.symlink(tmp_path / "real", tmp_path / "linked")
    os.symlink(tmp_path / "real/a.py", tmp_path / "b.py")
    assert seen(tmp_path, ["real/a.py"], store_dir=None) == {
        "real/a.py": ((tmp_path / "real/a.py").stat().st_size,
                      (tmp_path / "real/a.py").stat().st_mtime_ns)}
    assert seen(tmp_path, ["linked/a.py"], store_dir=None) is None
    assert seen(tmp_path, ["b.py"], store_dir=None) is None


def test_git_excludes_apply_as_in_the_walk(tmp_path):
    (tmp_path / ".git/info").mkdir(parents=True)
    (tmp_path / ".git/info/exclude").write_text("*.tmp\n")
    for name in ("a.tmp", "a.py"):
        (tmp_path / name).write_text("x")
    assert set(seen(tmp_path, ["a.tmp", "a.py", "gone.py"], store_dir=None)) == {"a.py"}
