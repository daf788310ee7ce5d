from __future__ import annotations

import importlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from repoctx.errors import ReconcileError
from repoctx.reconcile.walk import (
    BROKEN_SYMLINK,
    MAX_DEPTH,
    MAX_FILES,
    SPECIAL_FILE,
    SYMLINK_DUPLICATE,
    SYMLINK_LOOP,
    SYMLINK_OUTSIDE_ROOT,
    UNDECODABLE_NAME,
    UNREADABLE_DIR,
    Skipped,
    Walk,
    WalkedFile,
    is_binary,
    walk,
)

walk_module = importlib.import_module("repoctx.reconcile.walk")  # the package exports walk()
from .helpers import as_nobody  # noqa: E402  (shared with the reconcile tests)


def make(root: Path, *paths: str, content: str = "x") -> None:
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)


def paths(result: Walk) -> list[str]:
    return [walked.path for walked in result.files]


def run(root: Path, **kwargs: object) -> Walk:
    kwargs.setdefault("store_dir", None)
    return walk(root, **kwargs)  # type: ignore[arg-type]


# -- listing ---------------------------------------------------------------------------------


def test_lists_files_sorted_with_size_and_mtime(tmp_path: Path) -> None:
    make(tmp_path, "b.txt", "a/z.py", "a.txt", "a/b/c.md")
    (tmp_path / "a.txt").write_text("hello")
    result = run(tmp_path)
    assert paths(result) == ["a.txt", "a/b/c.md", "a/z.py", "b.txt"]
    info = os.stat(tmp_path / "a.txt")
    assert result.files[0] == WalkedFile("a.txt", 5, info.st_mtime_ns)
    assert result.skipped == ()
    assert run(tmp_path) == result


def test_reports_the_ctimes_the_listing_depends_on(tmp_path: Path) -> None:
    make(tmp_path, "a/b/c.py", "a/.gitignore", "x.py")
    result = run(tmp_path)
    assert [path for path, _ in result.ctimes] == ["", "a", "a/.gitignore", "a/b"]
    assert dict(result.ctimes)["a/b"] == os.stat(tmp_path / "a/b").st_ctime_ns
    assert not result.followed_links
    (tmp_path / "link.py").symlink_to(tmp_path / "x.py")
    assert run(tmp_path).followed_links


def test_unicode_names(tmp_path: Path) -> None:
    make(tmp_path, "größe/ñandú.py", "z.py", "é.txt")
    assert paths(run(tmp_path)) == ["größe/ñandú.py", "z.py", "é.txt"]  # code-point order


def test_names_that_are_not_utf8_are_skipped(tmp_path: Path) -> None:
    make(tmp_path, "ok.py")
    with open(os.path.join(os.fsencode(tmp_path), b"bad\xff.py"), "wb") as handle:
        handle.write(b"x")
    result = run(tmp_path)
    assert paths(result) == ["ok.py"]
    assert result.skipped == (Skipped("bad\ufffd.py", UNDECODABLE_NAME),)


def test_root_must_be_a_readable_directory(tmp_path: Path) -> None:
    make(tmp_path, "file.txt")
    with pytest.raises(ReconcileError):
        run(tmp_path / "missing")
    with pytest.raises(ReconcileError):
        run(tmp_path / "file.txt")


# -- ignore files ----------------------------------------------------------------------------


def test_nested_gitignores_with_negation(tmp_path: Path) -> None:
    make(tmp_path, "app.log", "keep.log", "top.txt", "build/out.o", "build/keep.txt",
         "cache", "sub/cache/data", "sub/app.log", "sub/debug.log", "sub/top.txt",
         "sub/local.txt", "sub/deep/local.txt", "sub/deep/x.txt", "sub/nested/x.txt",
         "other/nested/x.txt")
    (tmp_path / ".gitignore").write_text(
        "# comment\n*.log\n!keep.log\n/top.txt\nbuild/\n!build/keep.txt\ncache/\n")
    (tmp_path / "sub" / ".gitignore").write_text("!debug.log\n/local.txt\nnested/x.txt\n")
    assert paths(run(tmp_path)) == [
        ".gitignore", "cache", "keep.log", "other/nested/x.txt", "sub/.gitignore",
        "sub/debug.log", "sub/deep/local.txt", "sub/deep/x.txt", "sub/top.txt",
    ]
    # app.log, top.txt, build/, sub/cache/, sub/app.log, sub/local.txt, sub/nested/x.txt
    assert run(tmp_path).ignored == 7


def test_deeper_ignore_file_overrides_a_shallower_one(tmp_path: Path) -> None:
    make(tmp_path, "a/b/c.gen", "a/d.gen", "e.gen")
    (tmp_path / ".gitignore").write_text("*.gen\n")
    (tmp_path / "a" / "b" / ".gitignore").write_text("!*.gen\n")
    assert paths(run(tmp_path)) == [".gitignore", "a/b/.gitignore", "a/b/c.gen"]


def test_all_three_ignore_file_names(tmp_path: Path) -> None:
    make(tmp_path, "secret.txt", "draft.md", "gen.py", "ok.py", "sub/secret.txt",
         "sub/draft.md", "sub/notes.md")
    (tmp_path / ".gitignore").write_text("gen.py\nsecret.txt\n")
    (tmp_path / ".contextpullignore").write_text("draft.md\nok.py\n")
    (tmp_path / ".repoctxignore").write_text("!gen.py\n!ok.py\n")  # has the last word
    (tmp_path / "sub" / ".repoctxignore").write_text("notes.md\n")
    assert paths(run(tmp_path)) == [
        ".contextpullignore", ".gitignore", ".repoctxignore", "gen.py", "ok.py",
        "sub/.repoctxignore",
    ]


# -- always-skipped directories --------------------------------------------------------------


def test_git_and_store_are_never_entered(tmp_path: Path) -> None:
    make(tmp_path, ".git/HEAD", ".git/objects/ab/cd", "vendor/lib/.git", "vendor/lib/a.py",
         ".repoctx/lmdb/data.mdb", "elsewhere/store/x", "src/.git/config", "main.py")
    (tmp_path / ".gitignore").write_text("!.git/\n!.repoctx/\n")
    result = run(tmp_path, store_dir=tmp_path / ".repoctx")
    assert paths(result) == [".gitignore", "elsewhere/store/x", "main.py", "vendor/lib/a.py"]
    other = run(tmp_path, store_dir=tmp_path / "elsewhere" / "store")
    assert "elsewhere/store/x" not in paths(other)
    assert ".repoctx/lmdb/data.mdb" not in paths(other)  # any store, active or not


def test_relative_store_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make(tmp_path, ".repoctx/x", "a.py")
    monkeypatch.chdir(tmp_path)
    assert paths(walk(Path("."), store_dir=Path(".repoctx"))) == ["a.py"]


# -- symlinks --------------------------------------------------------------------------------


@pytest.fixture
def outside() -> Iterator[Path]:
    place = Path(tempfile.mkdtemp(prefix="repoctx-outside-"))
    make(place, "secret.txt", "dir/inner.txt")
    yield place
    shutil.rmtree(place)


def test_symlinks_out_of_the_root_are_not_followed(tmp_path: Path, outside: Path) -> None:
    make(tmp_path, "a.py")
    (tmp_path / "abs_dir").symlink_to(outside / "dir")
    (tmp_path / "abs_file").symlink_to(outside / "secret.txt")
    (tmp_path / "rel_up").symlink_to(Path("..") / outside.name)
    result = run(tmp_path)
    assert paths(result) == ["a.py"]
    assert result.skipped == (
        Skipped("abs_dir", SYMLINK_OUTSIDE_ROOT), Skipped("abs_file", SYMLINK_OUTSIDE_ROOT),
        Skipped("rel_up", SYMLINK_OUTSIDE_ROOT))


def test_symlink_loops_are_reported_not_followed(tmp_path: Path) -> None:
    make(tmp_path, "a/b/file.py")
    (tmp_path / "a" / "b" / "up").symlink_to("..", target_is_directory=True)
    (tmp_path / "a" / "root").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "self").symlink_to("self")
    result = run(tmp_path)
    assert paths(result) == ["a/b/file.py"]
    assert result.skipped == (
        Skipped("a/b/up", SYMLINK_LOOP), Skipped("a/root", SYMLINK_LOOP),
        Skipped("self", SYMLINK_LOOP))


def test_in_root_symlinks(tmp_path: Path) -> None:
    make(tmp_path, "real/mod.py", "generated/out.py", "data.txt")
    (tmp_path / "data.txt").write_text("12345")
    (tmp_path / ".gitignore").write_text("generated/\n")
    (tmp_path / "alias.txt").symlink_to("data.txt")
    (tmp_path / "again").symlink_to("real", target_is_directory=True)
    (tmp_path / "view").symlink_to("generated", target_is_directory=True)
    (tmp_path / "dangling").symlink_to("nowhere")
    result = run(tmp_path)
    assert paths(result) == [".gitignore", "alias.txt", "data.txt", "real/mod.py",
                             "view/out.py"]
    assert result.files[1].size == 5
    assert result.skipped == (
        Skipped("again", SYMLINK_DUPLICATE), Skipped("dangling", BROKEN_SYMLINK))


def test_two_links_to_one_directory_walk_it_once(tmp_path: Path) -> None:
    make(tmp_path, "hidden/x.py")
    (tmp_path / ".gitignore").write_text("hidden/\n")
    (tmp_path / "one").symlink_to("hidden", target_is_directory=True)
    (tmp_path / "two").symlink_to("hidden", target_is_directory=True)
    result = run(tmp_path)
    assert paths(result) == [".gitignore", "one/x.py"]
    assert result.skipped == (Skipped("two", SYMLINK_DUPLICATE),)


def test_a_directory_reached_by_two_links_is_walked_once(tmp_path: Path) -> None:
    make(tmp_path, "hidden/sub/x.py")
    (tmp_path / ".gitignore").write_text("hidden/\n")
    (tmp_path / "a_inner").symlink_to("hidden/sub", target_is_directory=True)
    (tmp_path / "b_outer").symlink_to("hidden", target_is_directory=True)
    result = run(tmp_path)
    assert paths(result) == [".gitignore", "a_inner/x.py"]
    assert result.skipped == (Skipped("b_outer/sub", SYMLINK_DUPLICATE),)


def test_symlink_into_git_is_not_followed(tmp_path: Path) -> None:
    make(tmp_path, ".git/config", "a.py")
    (tmp_path / "gitdir").symlink_to(".git", target_is_directory=True)
    assert paths(run(tmp_path)) == ["a.py"]


# -- bounds ----------------------------------------------------------------------------------


def test_max_depth_is_reported_and_not_covered(tmp_path: Path) -> None:
    make(tmp_path, "top.py", "a/one.py", "a/b/two.py", "a/b/c/three.py", "a/b/c/d/four.py")
    result = run(tmp_path, max_depth=2)
    assert paths(result) == ["a/b/two.py", "a/one.py", "top.py"]
    assert result.skipped == (Skipped("a/b/c", MAX_DEPTH),)
    assert not result.covers("a/b/c/three.py") and not result.covers("a/b/c")
    assert result.covers("a/b/gone.py") and result.covers("a/b/cx/gone.py")
    assert paths(run(tmp_path, max_depth=0)) == ["top.py"]


def test_max_files_stops_the_walk(tmp_path: Path) -> None:
    make(tmp_path, *(f"f{i}.txt" for i in range(5)))
    result = run(tmp_path, max_files=3)
    assert paths(result) == ["f0.txt", "f1.txt", "f2.txt"]
    assert result.skipped == (Skipped("f3.txt", MAX_FILES),)
    assert result.truncated and not result.covers("f4.txt")
    assert not run(tmp_path, max_files=5).truncated


# -- unreadable directories and special files ------------------------------------------------


def test_unreadable_dir_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make(tmp_path, "ok.py", "locked/x.py", "locked/deeper/y.py")
    real_scandir = os.scandir

    def refusing(path: str) -> object:
        if os.path.basename(path) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(walk_module.os, "scandir", refusing)
    result = run(tmp_path)
    assert paths(result) == ["ok.py"]
    assert result.skipped == (Skipped("locked", UNREADABLE_DIR),)
    assert not result.covers("locked/x.py") and result.covers("ok.py")


def test_unreadable_dir_for_real() -> None:
    place = Path(tempfile.mkdtemp(prefix="repoctx-perm-"))  # /tmp: nobody can reach it
    try:
        place.chmod(0o755)
        make(place, "ok.py", "locked/x.py")
        for made in (place / "ok.py", place / "locked"):
            made.chmod(0o755)
        (place / "locked").chmod(0)
        if os.geteuid() == 0:
            result = as_nobody(lambda: walk(place, store_dir=None))
            if isinstance(result, PermissionError):
                pytest.skip(f"cannot drop root privileges here: {result}")
        else:
            result = walk(place, store_dir=None)
        assert isinstance(result, Walk), result
        assert paths(result) == ["ok.py"]
        assert result.skipped == (Skipped("locked", UNREADABLE_DIR),)
    finally:
        (place / "locked").chmod(0o755)
        shutil.rmtree(place)


def test_fifo_is_a_special_file(tmp_path: Path) -> None:
    make(tmp_path, "a.py")
    os.mkfifo(tmp_path / "pipe")
    result = run(tmp_path)
    assert paths(result) == ["a.py"]
    assert result.skipped == (Skipped("pipe", SPECIAL_FILE),)


# -- binary detection ------------------------------------------------------------------------


@pytest.mark.parametrize(("head", "binary"), [
    (b"", False), (b"plain text\n", False), ("ünïcödé".encode(), False),
    (b"\x89PNG\r\n\x1a\n\x00\x00", True), (b"a" * 8191 + b"\0", True),
    (b"a" * 8192 + b"\0", False),
])
def test_is_binary(head: bytes, binary: bool) -> None:
    assert is_binary(head) is binary
