"""Re-exports that trust recorded stats: only files whose stat cannot be vouched for are read,
and the result equals a fresh export of the same files."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from repoctx.contextpull import export_directory, write_export
from repoctx.contextpull.write import files as files_module
from repoctx.contextpull.write.files import RACY_NS, UnreadFile, Vouched, resolve

from .test_patch import TABLES
from .test_patch import dump as dump_tables

OLD_NS = time.time_ns() - 10 * RACY_NS  # an mtime long before any export here starts
# The full side table, and our meta less the stats start (each export has its own).
COMPARED = {
    **TABLES,
    "side_docs": "SELECT * FROM repoctx_documents ORDER BY doc_id",
    "ours": "SELECT key, value FROM repoctx_meta WHERE key <> 'stats_since_ns' ORDER BY key",
}


def dump(path: Path) -> dict[str, list[tuple]]:
    return dump_tables(path, COMPARED)


def write(root: Path, rel: str, text: str, mtime_ns: int | None = OLD_NS) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime_ns is not None:
        os.utime(path, ns=(mtime_ns, mtime_ns))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    for i in range(8):
        write(root, f"docs/d{i}.md", f"# Doc {i}\n\nBody of document {i}, long enough.\n")
    write(root, "mod.py", "def f():\n    return 1\n")
    return root


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths whose bytes were read, in order."""
    seen: list[str] = []
    real = files_module.read_checked

    def counting(path: str, max_bytes: int) -> bytes | str:
        seen.append(path)
        return real(path, max_bytes)

    monkeypatch.setattr(files_module, "read_checked", counting)
    return seen


def read_names(reads: list[str], root: Path) -> list[str]:
    return sorted(os.path.relpath(p, root) for p in reads)


def assert_fresh(root: Path, got: Path, tmp_path: Path) -> None:
    """``got`` holds what a from-scratch export of ``root`` holds."""
    fresh = tmp_path / "fresh.db"
    export_directory(root, fresh)
    assert dump(got) == dump(fresh)


def test_unchanged_stats_are_trusted_and_equal_a_fresh_export(
    tree: Path, tmp_path: Path, reads: list[str]
) -> None:
    first = export_directory(tree, tmp_path / "s.db")
    assert len(reads) == first.documents == 9
    reads.clear()
    write(tree, "docs/d3.md", "# Doc 3\n\nA changed body, long enough to be a section.\n")
    again = export_directory(tree, tmp_path / "s2.db", previous=tmp_path / "s.db")
    assert again.patched and again.sectioned == 1
    assert read_names(reads, tree) == ["docs/d3.md"]  # the only stat that changed
    assert_fresh(tree, tmp_path / "s2.db", tmp_path)


def test_a_file_edited_within_the_racy_window_is_read_again(
    tree: Path, tmp_path: Path, reads: list[str]
) -> None:
    racy = time.time_ns()  # as if written just now, in the tick the export reads it
    write(tree, "docs/d1.md", "# Doc 1\n\nFirst version of this body.\n", racy)
    export_directory(tree, tmp_path / "s.db")
    reads.clear()
    # Same size, same mtime: only the racy rule tells the change.
    write(tree, "docs/d1.md", "# Doc 1\n\nOther version of this body.\n", racy)
    again = export_directory(tree, tmp_path / "s2.db", previous=tmp_path / "s.db")
    assert read_names(reads, tree) == ["docs/d1.md"] and again.sectioned == 1
    assert_fresh(tree, tmp_path / "s2.db", tmp_path)


def test_a_racy_file_read_again_unchanged_is_trusted_once_old(
    tree: Path, tmp_path: Path, reads: list[str]
) -> None:
    write(tree, "docs/d1.md", "# Doc 1\n\nBody of document 1, long enough.\n", time.time_ns())
    export_directory(tree, tmp_path / "s.db")
    reads.clear()
    again = export_directory(tree, tmp_path / "s2.db", previous=tmp_path / "s.db")
    assert read_names(reads, tree) == ["docs/d1.md"] and again.sectioned == 0


@pytest.mark.parametrize("change", ["size", "mtime"])
def test_a_changed_size_or_mtime_is_read_again(
    tree: Path, tmp_path: Path, reads: list[str], change: str
) -> None:
    export_directory(tree, tmp_path / "s.db")
    reads.clear()
    if change == "size":
        write(tree, "docs/d2.md", "# Doc 2\n\nBody of document 2, long enough!!\n")
    else:  # same bytes, touched: read, found unchanged, its new stat recorded
        os.utime(tree / "docs/d2.md", ns=(OLD_NS + 1, OLD_NS + 1))
    again = export_directory(tree, tmp_path / "s2.db", previous=tmp_path / "s.db")
    assert read_names(reads, tree) == ["docs/d2.md"]
    assert again.sectioned == (1 if change == "size" else 0)
    assert_fresh(tree, tmp_path / "s2.db", tmp_path)
    reads.clear()
    export_directory(tree, tmp_path / "s3.db", previous=tmp_path / "s2.db")
    assert reads == []  # the new stat was recorded


def test_deleted_and_added_files(tree: Path, tmp_path: Path, reads: list[str]) -> None:
    export_directory(tree, tmp_path / "s.db")
    reads.clear()
    (tree / "docs/d5.md").unlink()
    write(tree, "docs/a-new.md", "# New\n\nA document added since the last export.\n")
    again = export_directory(tree, tmp_path / "s2.db", previous=tmp_path / "s.db")
    assert read_names(reads, tree) == ["docs/a-new.md"]
    assert again.documents == 9 and again.sectioned == 1 and again.patched
    assert_fresh(tree, tmp_path / "s2.db", tmp_path)


def test_a_previous_export_without_stats_is_read_in_full(
    tree: Path, tmp_path: Path, reads: list[str]
) -> None:
    export_directory(tree, tmp_path / "s.db")
    conn = sqlite3.connect(tmp_path / "s.db")  # what an older writer left: no mtime column
    conn.execute("ALTER TABLE repoctx_documents DROP COLUMN mtime_ns")
    conn.execute("DELETE FROM repoctx_meta WHERE key = 'stats_since_ns'")
    conn.commit()
    conn.close()
    reads.clear()
    again = export_directory(tree, tmp_path / "s2.db", previous=tmp_path / "s.db")
    assert len(reads) == 9 and again.reused == 9 and not again.patched
    assert_fresh(tree, tmp_path / "s2.db", tmp_path)


def test_a_patchable_previous_without_a_stats_start_trusts_nothing(
    tree: Path, tmp_path: Path, reads: list[str]
) -> None:
    unread = [UnreadFile(p.relative_to(tree).as_posix(), 0, 0, str(p), 1 << 20)
              for p in sorted(tree.rglob("*.*"))]  # fmt: skip
    write_export(tmp_path / "s.db", unread, corpus_root=str(tree.resolve()))  # no stats start
    reads.clear()
    again = export_directory(tree, tmp_path / "s2.db", previous=tmp_path / "s.db")
    assert len(reads) == 9 and again.patched and again.sectioned == 0
    assert_fresh(tree, tmp_path / "s2.db", tmp_path)


def test_vouched_files_are_read_when_no_patch_keeps_them(
    tree: Path, tmp_path: Path, reads: list[str]
) -> None:
    export_directory(tree, tmp_path / "s.db")
    for i in range(5):  # most documents gone: a full rewrite, which needs every file's bytes
        (tree / f"docs/d{i}.md").unlink()
    reads.clear()
    again = export_directory(tree, tmp_path / "s2.db", previous=tmp_path / "s.db")
    assert not again.patched and again.reused == 4 and len(reads) == 4
    assert_fresh(tree, tmp_path / "s2.db", tmp_path)


def test_a_full_rewrite_reads_no_file_twice(tree: Path, tmp_path: Path, reads: list[str]) -> None:
    export_directory(tree, tmp_path / "s.db")
    for i in range(5):  # a full rewrite again, and one of the files left has changed
        (tree / f"docs/d{i}.md").unlink()
    write(tree, "docs/d6.md", "# Doc 6\n\nA changed body, long enough to be a section.\n")
    reads.clear()
    again = export_directory(tree, tmp_path / "s2.db", previous=tmp_path / "s.db")
    assert not again.patched and again.reused == 3 and again.sectioned == 1
    assert read_names(reads, tree) == ["docs/d5.md", "docs/d6.md", "docs/d7.md", "mod.py"]
    assert_fresh(tree, tmp_path / "s2.db", tmp_path)


def test_resolve(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\ntext")
    (tmp_path / "b.bin").write_bytes(b"a\0b")
    files = [UnreadFile(name, 0, 0, str(tmp_path / name), 100) for name in ("a.md", "b.bin")]
    resolved = resolve(files, None)
    assert [d.path for d in resolved] == ["a.md"] and resolved[0].mtime_ns == 0
    assert resolve(files, lambda f: "f" * 64) == [Vouched("a.md", "f" * 64),
                                                  Vouched("b.bin", "f" * 64)]  # fmt: skip


def test_read_checked_says_why_a_file_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "bin").write_bytes(b"a\0b")
    (tmp_path / "big").write_text("x" * 10)
    (tmp_path / "ok").write_text("fine")
    assert files_module.read_checked(str(tmp_path / "bin"), 100) == files_module.BINARY
    assert files_module.read_checked(str(tmp_path / "big"), 5) == files_module.TOO_LARGE
    assert files_module.read_checked(str(tmp_path / "gone"), 5) == files_module.UNREADABLE
    assert files_module.read_checked(str(tmp_path / "ok"), 5) == b"fine"
    skipped = files_module.Skips()
    unread = [files_module.UnreadFile(name, 0, 0, str(tmp_path / name), 5)
              for name in ("bin", "big", "gone", "ok")]
    assert [d.path for d in files_module.resolve(unread, None, skipped)] == ["ok"]
    assert skipped.as_json() == {
        "skipped": {"binary": 1, "too-large": 1, "unreadable": 1},
        "skippedPaths": {"binary": ["bin"], "too-large": ["big"], "unreadable": ["gone"]}}
    assert skipped.text() == "1 binary, 1 too-large, 1 unreadable"
    assert files_module.Skips().text() == "none"


def test_skips_reset_to_an_earlier_copy_forgets_what_came_after() -> None:
    from copy import deepcopy

    skips = files_module.Skips()
    skips.add("a.bin", "binary")
    earlier = deepcopy(skips)
    skips.add("b.bin", "binary")
    skips.add_count("too-large", 3)
    skips.reset_to(earlier)
    assert skips.as_json() == {"skipped": {"binary": 1}, "skippedPaths": {"binary": ["a.bin"]}}
