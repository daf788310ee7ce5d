"""bench/_swe_splits: which lines a reference fix changes, and the trees at base commits."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import _swe_splits  # noqa: E402
from _swe_splits import mirror, patch_lines, tree_root  # noqa: E402


def _patch(path: str, header: str, *body: str, old: str | None = None) -> str:
    return "\n".join([f"diff --git a/{path} b/{path}", f"--- {old or 'a/' + path}",
                      f"+++ b/{path}", header, *body]) + "\n"


def test_removed_and_replaced_lines_are_the_minus_lines():
    patch = _patch("m.py", "@@ -10,5 +10,5 @@ def f():", "     a = 1", "-    b = 2", "+    b = 3",
                   "     c = 4", "-    d = 5", "     e = 6")
    assert patch_lines(patch) == {"m.py": {11, 13}}


def test_a_pure_insertion_counts_the_lines_either_side():
    patch = _patch("m.py", "@@ -3,4 +3,6 @@", "     x", "     y", "+    new", "+    more",
                   "     z", "     w")
    assert patch_lines(patch) == {"m.py": {4, 5}}


def test_an_insertion_at_the_end_of_a_hunk_takes_the_line_past_it():
    patch = _patch("m.py", "@@ -8,2 +8,3 @@", " last", " one", "+appended")
    assert patch_lines(patch) == {"m.py": {9, 10}}


def test_a_hunk_with_no_old_lines_inserts_after_the_line_its_header_names():
    patch = _patch("m.py", "@@ -4,0 +5,1 @@", "+inserted")
    assert patch_lines(patch) == {"m.py": {4, 5}}


def test_changed_lines_that_look_like_headers_stay_changes():
    patch = _patch("doc.rst", "@@ -1,3 +1,3 @@", " Title", "--- old rule", "+=== new rule",
                   " text")
    patch += _patch("b.py", "@@ -2 +2 @@", "-x", "+y")
    assert patch_lines(patch) == {"doc.rst": {2}, "b.py": {2}}


def test_created_files_are_left_out_and_no_newline_markers_skipped():
    patch = _patch("new.py", "@@ -0,0 +1,2 @@", "+a", "+b", old="/dev/null")
    patch += _patch("m.py", "@@ -1,2 +1,2 @@", " a", "-b", "\\ No newline at end of file",
                    "+c", "\\ No newline at end of file")
    assert patch_lines(patch) == {"m.py": {2}}


def test_a_patch_with_no_hunks_edits_nothing():
    assert patch_lines("") == {}
    assert patch_lines("not a diff\n@@ -1 +1 @@\n-x\n") == {}


def test_a_missing_mirror_says_which_variable_to_set(monkeypatch):
    monkeypatch.delenv("SWE_MIRROR_SYMPY", raising=False)
    with pytest.raises(SystemExit, match="set SWE_MIRROR_SYMPY"):
        mirror("sympy")
    monkeypatch.setenv("SWE_MIRROR_SPHINX", "/nonexistent/git")
    with pytest.raises(SystemExit, match="not a bare git directory"):
        mirror("sphinx")


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                           *args], check=True, capture_output=True, text=True)
    return done.stdout.strip()


def test_a_base_commit_is_extracted_once_and_cached(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.py").write_text("x = 1\n")
    _git(repo, "add", "a.py")
    _git(repo, "commit", "-q", "-m", "one")
    first = _git(repo, "rev-parse", "HEAD")
    (repo / "a.py").write_text("x = 2\n")
    _git(repo, "commit", "-q", "-am", "two")
    monkeypatch.setenv("SWE_MIRROR_SYMPY", str(repo / ".git"))
    monkeypatch.setattr(_swe_splits, "TREES", tmp_path / "trees")
    root = tree_root("sympy", first)
    assert (root / "a.py").read_text() == "x = 1\n"
    (root / "a.py").write_text("kept\n")
    assert (tree_root("sympy", first) / "a.py").read_text() == "kept\n"
    with pytest.raises(SystemExit, match="could not extract"):
        tree_root("sympy", "0" * 40)
    assert sorted(p.name for p in (tmp_path / "trees").iterdir()) == [f"sympy-{first}"]


def test_a_hunk_numbered_for_an_older_tree_is_placed_where_its_old_lines_are():
    patch = _patch("m.py", "@@ -2,3 +2,3 @@", " def f():", "-    return 1", "+    return 2", "")
    tree = ["# header", "# moved", "# down", "", "def f():", "    return 1", "", "x = 1"]
    assert patch_lines(patch, lambda path: tree) == {"m.py": {6}}
    assert patch_lines(patch) == {"m.py": {3}}  # no tree: as the header says
    assert patch_lines(patch, lambda path: ["nothing", "alike"]) == {"m.py": {3}}
    twice = ["def f():", "    return 1", "", "def f():", "    return 1", "", "pad"]
    assert patch_lines(patch, lambda path: twice) == {"m.py": {2}}  # the nearest place
