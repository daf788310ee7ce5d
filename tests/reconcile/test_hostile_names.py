"""A file name is data, never a reason to stop.

Any byte sequence a file system allows in a name is indexed under a key that escapes
what the key grammar cannot hold, or, when it is not UTF-8 (the records and the export
hold text), skipped with the reason ``undecodable-name``; every other file is indexed.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from repoctx import open_store
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.reconcile.nodes import file_node

# A name component: any bytes but "/" and NUL, weighted towards the hostile ones.
_BYTE = st.one_of(
    st.sampled_from(b"\t\n\r\x1b\x7f%~\\ .-:*?\"'<>|"),
    st.sampled_from([0x80, 0xC3, 0xE2, 0xFF, 0xFE]),  # stray UTF-8 lead/continuation bytes
    st.integers(1, 255).filter(lambda b: b != ord("/")),
)
_NAME = st.one_of(
    st.lists(_BYTE, min_size=1, max_size=24).map(bytes),
    st.sampled_from(["a\u2215b.py", "a\uff0fb.py", "%41%25%.py", "~", "\u00e9\u0301.md"]
                    ).map(str.encode),
    st.integers(200, 255).map(lambda n: b"L" * (n - 3) + b".py"),  # up to NAME_MAX
).filter(lambda name: name not in (b".", b"..") and not name.startswith((b".git", b".repo",
                                                                           b".contextpull")))


def _decodable(name: bytes) -> bool:
    try:
        name.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _make_tree(root: Path, names: list[bytes]) -> set[str]:
    """Write ``names`` (each as a file, and the first also as a directory holding one)
    beside two ordinary files; returns the paths the index must hold."""
    os.makedirs(root)
    expected = {"plain.py", "sub/mod.py"}
    for rel, body in (("plain.py", b"def plain():\n    return 1\n"),
                      ("sub/mod.py", b"X = 1\n")):
        os.makedirs(root / rel.rpartition("/")[0], exist_ok=True)
        (root / rel).write_bytes(body)
    base = os.fsencode(root)
    for name in names:
        path = os.path.join(base, name)
        if os.path.lexists(path):
            continue
        with open(path, "wb") as handle:
            handle.write(b"def f():\n    return 2\n")
        if _decodable(name):
            expected.add(name.decode())
    directory = os.path.join(base, b"d" + names[0][:200])
    if not os.path.lexists(directory):
        os.mkdir(directory)
        with open(os.path.join(directory, names[0]), "wb") as handle:
            handle.write(b"Y = 3\n")
        if _decodable(names[0]):
            expected.add("d" + names[0][:200].decode() + "/" + names[0].decode())
    return expected


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_NAME, min_size=1, max_size=5, unique=True))
def test_every_name_is_indexed_or_reported_and_the_rest_always_indexed(names):
    base = Path(tempfile.mkdtemp(prefix="repoctx-names-"))
    try:
        root = base / "repo"
        expected = _make_tree(root, names)
        with open_store(root, repo_id="demo", store_dir=base / "store") as store:
            report = reconcile_pass(store, root, PassOptions(workers=1))
            indexed = set(file_node.load_all(store))
            again = reconcile_pass(store, root, PassOptions(workers=1))
        assert indexed == expected
        undecodable = report.skipped.get("undecodable-name", 0)
        assert report.scanned == len(expected)
        assert undecodable == sum(1 for n in set(names) if not _decodable(n)) + (
            0 if _decodable(names[0]) else 1)
        assert not report.warnings and "failed" not in report.skipped
        assert again.added == again.changed == again.removed == 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


HOSTILE = [b"a\tb.py", b"new\nline.py", b"bad\xff\xfe.py", b"p%41~q.py", b"%.md",
           b"a\xe2\x88\x95b.py", b"~", b"N" * 252 + b".py", b"esc\x1b[31m.txt"]


def test_a_real_index_of_hostile_names_exits_0_and_exports_them(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "ok.py").write_text("def ok():\n    return 1\n")
    for name in HOSTILE:
        with open(os.path.join(os.fsencode(root), name), "wb") as handle:
            handle.write(b"def hostile():\n    return 2\n")
    run = subprocess.run([sys.executable, "-m", "repoctx", "index", str(root), "--json"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["added"] == len(HOSTILE)  # ok.py and every decodable name
    assert report["skipped"] == {"undecodable-name": 1}
    assert report["skippedPaths"]["undecodable-name"] == ["bad\ufffd\ufffd.py"]
    with sqlite3.connect(root / ".repoctx" / "contextpull.sqlite") as db:
        paths = {row[0] for row in db.execute("SELECT path FROM documents")}
    assert paths == {"ok.py"} | {n.decode() for n in HOSTILE if _decodable(n)}
    outline = subprocess.run(
        [sys.executable, "-m", "repoctx", "call", "repocontext_outline",
         json.dumps({"path": "a\tb.py"}), "--path", str(root)],
        capture_output=True, text=True, timeout=120)
    assert outline.returncode == 0, outline.stderr
    assert json.loads(outline.stdout)["symbols"][0]["fqName"] == "a\tb.hostile"
