import json
import os
import subprocess
import sys
from pathlib import Path

from repoctx.contextpull import Definition, Reader, export_directory
from repoctx.contextpull.write.directory import is_binary, iter_files


def _tree(root: Path) -> None:
    files = {
        ".gitignore": "*.log\nbuild/\n",
        ".contextpullignore": "secret.md\n",
        "keep.md": "# Keep\n\nThis file is kept in the export.",
        "secret.md": "# Secret\n\nignored",
        "app.log": "ignored log",
        "build/out.md": "# ignored",
        "sub/.gitignore": "local.txt\n",
        "sub/local.txt": "ignored by nested file",
        "sub/other.txt": "Kept Text\n\nNested file kept.",
        ".git/config": "[core]",
        ".repoctx/x.md": "# store",
        "mod.py": "def f():\n    return 1\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "bin.dat").write_bytes(b"abc\0def")


def test_walk_honours_ignores_and_skips(tmp_path: Path) -> None:
    _tree(tmp_path)
    paths = [found.path for found in iter_files(tmp_path)]
    assert paths == ["bin.dat", "keep.md", "mod.py", "sub/other.txt"]  # binary dropped later


def test_export_directory(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    _tree(root)
    seen = []

    def definitions_for(path: str, data: bytes) -> tuple[Definition, ...] | None:
        seen.append(path)
        return (Definition("f", "function", 1, 2),) if path.endswith(".py") else None

    report = export_directory(root, tmp_path / "s.db", definitions_for=definitions_for)
    assert report.documents == 3 and "bin.dat" not in seen
    with Reader(tmp_path / "s.db") as reader:
        listing = reader.index("")["text"]
        assert "keep.md" in listing and "sub/other.txt" in listing and "mod.py" in listing
        assert reader.read("mod.py#0")["heading_path"] == "mod.py > f"


def test_is_binary() -> None:
    assert is_binary(b"a\0b") and not is_binary(b"text" + b"x" * 9000 + b"\0")


def test_a_directory_export_reports_what_it_skipped(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    _tree(root)
    (root / "big.txt").write_text("x" * 300)
    with open(os.path.join(os.fsencode(root), b"bad\xff.md"), "wb") as handle:
        handle.write(b"# Bad name\n")
    report = export_directory(root, tmp_path / "out.sqlite", max_bytes=200)
    assert report.skipped.counts == {"binary": 1, "too-large": 1, "undecodable-name": 1,
                                     "ignored": 4}  # secret.md, app.log, build/, local.txt
    assert report.skipped.paths == {"binary": ["bin.dat"], "too-large": ["big.txt"],
                                    "undecodable-name": ["bad\ufffd.md"]}
    assert report.documents == 3  # keep.md, mod.py, sub/other.txt


def test_repoctx_export_of_a_directory_says_what_it_skipped(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    _tree(root)
    os.mkfifo(root / "pipe.md")
    args = [sys.executable, "-m", "repoctx", "export", str(root), "--out",
            str(tmp_path / "out.sqlite")]
    text = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert text.returncode == 0, text.stderr
    assert "skipped: 1 binary, 4 ignored, 1 special-file" in text.stdout
    answer = subprocess.run([*args, "--json"], capture_output=True, text=True, timeout=120)
    payload = json.loads(answer.stdout)
    assert payload["skipped"] == {"binary": 1, "ignored": 4, "special-file": 1}
    assert payload["skippedPaths"] == {"binary": ["bin.dat"], "special-file": ["pipe.md"]}
