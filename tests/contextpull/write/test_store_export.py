"""export_store: documents from file nodes, definitions from symbol records."""

from __future__ import annotations

import os
import pickle
import sqlite3
import time
from pathlib import Path

import pytest

from repoctx.contextpull import Reader, export_store
from repoctx.contextpull.sections.documents import SourceDocument
from repoctx.contextpull.write import files as files_module
from repoctx.contextpull.write import store_export
from repoctx.contextpull.write.files import RACY_NS
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.reconcile.nodes import file_node
from repoctx.store import open_store
from repoctx.tokenizer import count_tokens
from repoctx.trees import lmdb_key

from .test_files import dump

APP = '''"""The app."""

import os


class Model:
    """A model."""

    def save(self):
        return os.getcwd()

    @property
    def name(self):
        return "m"


def main():
    return Model().save()
'''


def rows(path: Path, query: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(query).fetchall()
    finally:
        conn.close()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    files = {"pkg/app.py": APP, "docs/guide.md": "# Guide\n\nRead this guide first.\n",
             ".gitignore": "*.log\n", "run.log": "ignored", "data.bin": "a\0b"}  # fmt: skip
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    with open_store(root, repo_id="demo") as store:
        reconcile_pass(store, root, PassOptions(workers=1))
    return root


def export(root: Path, out: Path, previous: Path | None = None):
    with open_store(root, repo_id="demo") as store:
        return export_store(store, root, out, previous=previous)


def test_documents_sections_and_definitions(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_extract(path: str, text: str) -> None:
        raise AssertionError(f"{path} should use its symbol records")

    monkeypatch.setattr("repoctx.contextpull.write.store_export.extract", no_extract)
    out = tmp_path / "cp.db"
    report = export(repo, out)
    assert report.documents == 2
    assert rows(out, "SELECT path, kind FROM documents ORDER BY doc_id") == [
        ("docs/guide.md", "markdown"), ("pkg/app.py", "code")]  # fmt: skip
    side = rows(out, "SELECT d.path, r.language, r.tokens FROM repoctx_documents r"
                " JOIN documents d USING(doc_id) WHERE d.path = 'pkg/app.py'")  # fmt: skip
    assert side == [("pkg/app.py", "python", count_tokens(APP))]
    symbols = rows(out, "SELECT s.heading_path, r.symbol, r.start_line, r.end_line"
                   " FROM sections s JOIN repoctx_sections r USING(id)"
                   " WHERE s.id LIKE 'pkg/app.py#%' ORDER BY s.ordinal")  # fmt: skip
    # the module docstring and imports glue onto the class (under 40 characters)
    assert symbols == [
        ("pkg/app.py > Model", "Model", 1, 14), ("pkg/app.py > main", "main", 17, 18)
    ]  # fmt: skip
    with Reader(out) as reader:
        assert reader.search("os.getcwd")["hits"][0]["id"].startswith("pkg/app.py#")


def test_changed_file_is_extracted_afresh_and_not_counted(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "cp.db"
    export(repo, out)
    changed = APP.replace("def main():", "def helper():\n    pass\n\n\ndef main():")
    (repo / "pkg/app.py").write_text(changed)  # the store has not seen this version
    report = export(repo, out, previous=out)
    assert report.patched and report.sectioned == 1
    assert ("pkg/app.py", None) in rows(  # the store has not counted these bytes yet
        out, "SELECT d.path, r.tokens FROM repoctx_documents r JOIN documents d USING(doc_id)"
    )
    assert ("helper",) in rows(out, "SELECT symbol FROM repoctx_sections")


def test_missing_file_is_skipped(repo: Path, tmp_path: Path) -> None:
    (repo / "docs/guide.md").unlink()
    assert export(repo, tmp_path / "cp.db").documents == 1


def test_a_portion_gives_definitions_away_from_the_snapshot(repo: Path) -> None:
    """A chunk's source holds the records its files need: pickled to a worker, it answers
    without the store, and holds no record of files outside the chunk."""
    with open_store(repo, repo_id="demo") as store, store.snapshot() as snapshot:
        records = file_node.records_in(store, snapshot)
        known = {path: store_export._Known(rec, file_node.field_of(rec, "digest"))  # current
                 for path, rec in records.items()}  # fmt: skip
        source = store_export.StoreDefinitions(store, snapshot, known)
        items = [SourceDocument("pkg/app.py", APP.encode()), SourceDocument("docs/guide.md", b"")]
        _, part = source.portion(items)
        _, other = source.portion([SourceDocument("docs/guide.md", b"")])
    part = pickle.loads(pickle.dumps(part))  # as a worker gets it
    definitions = part("pkg/app.py", APP.encode())
    assert definitions is not None
    assert [(d.name, d.start_line, [c.name for c in d.children]) for d in definitions] == [
        ("Model", 6, ["save", "name"]), ("main", 17, [])]  # fmt: skip
    assert part("docs/guide.md", b"# Guide") is None
    assert other._encoded == {} and pickle.loads(pickle.dumps(other)).declared(
        "pkg/app.py", "0" * 64) is None


def test_a_corrupt_symbol_record_costs_its_file_nothing(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_store(repo, repo_id="demo") as store:
        trees = store.trees
        with trees.env.begin(write=True, db=trees.dbs["repo-context-symbol"]) as txn:
            txn.put(lmdb_key(store.key("symbol", "pkg.app.Model")), b"\xc1garbage")
    extracted = []

    def extract(path: str, text: str):
        extracted.append(path)
        return real_extract(path, text)

    real_extract = store_export.extract
    monkeypatch.setattr(store_export, "extract", extract)
    out = tmp_path / "cp.db"
    export(repo, out)
    assert extracted == ["pkg/app.py"]  # read from the file itself, as one the store lacks
    assert rows(out, "SELECT r.symbol, r.start_line FROM repoctx_sections r"
                " WHERE r.id LIKE 'pkg/app.py#%'") == [("Model", 1), ("main", 17)]  # fmt: skip


def test_a_re_export_reads_only_files_whose_stat_changed(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = time.time_ns() - 10 * RACY_NS  # stats the first export may trust
    for path in repo.rglob("*"):
        if path.is_file():
            os.utime(path, ns=(old, old))
    first = tmp_path / "cp.db"
    export(repo, first)
    reads: list[str] = []
    real = files_module.read_checked
    monkeypatch.setattr(files_module, "read_checked",
                        lambda path, limit: reads.append(path) or real(path, limit))  # fmt: skip
    (repo / "docs/guide.md").write_text("# Guide\n\nRead this changed guide first.\n")
    report = export(repo, tmp_path / "again.db", previous=first)
    assert reads == [str(repo / "docs/guide.md")]
    assert report.patched and report.sectioned == 1
    export(repo, tmp_path / "fresh.db")
    assert dump(tmp_path / "again.db") == dump(tmp_path / "fresh.db")


def test_an_export_given_the_pass_s_scan_and_walk_writes_what_a_scan_and_stats_write(
    repo: Path, tmp_path: Path
) -> None:
    for i in range(4):  # enough unchanged nodes that the pass lends its scan
        (repo / f"pkg/mod{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    with open_store(repo, repo_id="demo") as store:
        reconcile_pass(store, repo, PassOptions(workers=1))
        (repo / "pkg/app.py").write_text(APP + "\n\ndef appended():\n    return 2\n")
        report = reconcile_pass(store, repo, PassOptions(workers=1))
        lent = report.nodes
        assert lent is not None and lent.written == {"pkg/app.py"}
        assert lent.stats["pkg/app.py"] == (os.stat(repo / "pkg/app.py").st_size,
                                            os.stat(repo / "pkg/app.py").st_mtime_ns)
        assert lent.since_ns <= time.time_ns()
        given = export_store(store, repo, tmp_path / "given.sqlite", nodes=lent)
        scanned = export_store(store, repo, tmp_path / "scanned.sqlite")
    assert (given.documents, given.sections) == (scanned.documents, scanned.sections)
    assert dump(tmp_path / "given.sqlite") == dump(tmp_path / "scanned.sqlite")
    since = rows(tmp_path / "given.sqlite",
                 "SELECT value FROM repoctx_meta WHERE key = 'stats_since_ns'")
    assert since == [(str(lent.since_ns),)]  # the stats were the walk's, taken after it began
