"""The writer: schema rows, chains, normalised FTS, meta, atomic replace, reuse."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from repoctx.contextpull import Definition, ExportReport, Reader, SourceDocument, write_export
from repoctx.contextpull.write.writer import corpus_fingerprint, normalise_path
from repoctx.errors import ContextPullError

TABLE = "## Big table\n\n| id | value |\n|---|---|\n" + "\n".join(
    f"| {i} | {'v' * 50} |" for i in range(80)
)
DOCS = [
    SourceDocument(
        "b.md", b"# B\n\nUse `--no-cache` when the cache is stale. Then stop.\n\n" + TABLE.encode()
    ),
    SourceDocument("./a.txt", b"Plain Title\n\nSome plain text body for the test."),
    SourceDocument(
        "src/m.py",
        b"def f():\n    return 1\n",
        (Definition("f", "function", 1, 2),),
        language="python",
        tokens=7,
    ),  # fmt: skip
]


def rows(path: Path, query: str, *args: object) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(query, args).fetchall()
    finally:
        conn.close()


# With the notes, one changed document is patched, not rewritten.
NOTES = [SourceDocument(f"n{i}.txt", f"Note {i}\n\nA note long enough to keep.".encode())
         for i in range(8)]


def _patch_b(store: Path, **kwargs: object) -> ExportReport:
    """Re-export ``store`` (written from DOCS and NOTES) with b.md changed."""
    changed = SourceDocument("b.md", b"# B\n\nNew body that is long enough to keep.")
    return write_export(store, [DOCS[1], changed, DOCS[2], *NOTES], corpus_root="/x/corpus",
                        previous=store, **kwargs)


def _unread(root: Path) -> list:
    from repoctx.contextpull.write.files import UnreadFile

    found = []
    for path in sorted(root.rglob("*")):
        info = path.stat()
        found.append(UnreadFile(path.relative_to(root).as_posix(), info.st_size,
                                info.st_mtime_ns, str(path), 4000))
    return found


def test_a_cold_export_reads_in_its_workers_and_writes_what_reading_first_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With no previous export the files are read by the pool's workers; the
    tables equal those of an export that read them first (a previous export that lends
    nothing), skips included."""
    from repoctx.contextpull.write import files as files_module
    from repoctx.contextpull.write.pool import POOL_MIN_DOCUMENTS

    from .test_files import COMPARED
    from .test_patch import dump

    root = tmp_path / "tree"
    root.mkdir()
    for i in range(POOL_MIN_DOCUMENTS + 30):  # enough for the forked workers
        (root / f"m{i:03d}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
        (root / f"d{i:03d}.md").write_text(f"# Doc {i}\n\nBody {i} is long enough to stay.\n")
    (root / "blob.bin").write_bytes(b"\0\1\2" * 10)
    (root / "big.txt").write_text("x" * 5000)  # over the 4,000 bytes the files allow
    (root / "gone.md").write_text("# Gone\n")
    files = _unread(root)
    (root / "gone.md").unlink()  # listed, then gone before it was read
    other = tmp_path / "other.sqlite"  # lends nothing: other paths, and not patchable
    write_export(other, [SourceDocument("zz.md", b"# Z\n")], corpus_root="/c")
    with sqlite3.connect(other) as conn:
        conn.execute("UPDATE repoctx_meta SET value = 'someone-else' WHERE key = 'writer'")
    cold, first = tmp_path / "cold.sqlite", tmp_path / "first.sqlite"
    read_here: list[str] = []  # files read in this process (forked workers count apart)
    real = files_module.read_checked
    monkeypatch.setattr(files_module, "read_checked",
                        lambda path, limit: read_here.append(path) or real(path, limit))
    cold_report = write_export(cold, files, corpus_root="/c")
    assert read_here == []
    first_report = write_export(first, files, corpus_root="/c", previous=other)
    assert len(read_here) == len(files)
    queries = {**COMPARED, "rowids": "SELECT rowid, id FROM sections ORDER BY rowid"}
    assert dump(cold, queries) == dump(first, queries)
    assert cold_report.skipped.as_json() == first_report.skipped.as_json()
    assert cold_report.skipped.counts == {"binary": 1, "too-large": 1, "unreadable": 1}
    assert (cold_report.documents, cold_report.sections) == (
        first_report.documents, first_report.sections) == (2 * (POOL_MIN_DOCUMENTS + 30),
                                                           cold_report.sections)
    assert cold_report.corpus_fingerprint == first_report.corpus_fingerprint


@pytest.fixture
def store(tmp_path: Path) -> Path:
    write_export(tmp_path / "s.db", DOCS, corpus_root="/x/corpus")
    return tmp_path / "s.db"


def test_documents_in_path_order_with_ids(store: Path) -> None:
    docs = rows(store, "SELECT doc_id, path, kind, n_sections FROM documents ORDER BY doc_id")
    assert [(d[0], d[1], d[2]) for d in docs] == [(1, "a.txt", "text"), (2, "b.md", "markdown"),
                                                 (3, "src/m.py", "code")]  # fmt: skip
    counts = rows(store, "SELECT doc_id, count(*) FROM sections GROUP BY doc_id")
    assert [(d[0], d[3]) for d in docs] == counts


def test_sections_chain_hash_and_char_len(store: Path) -> None:
    for sid, path, ordinal, text, char_len, digest, prev_id, next_id, n in rows(
        store,
        "SELECT s.id, d.path, s.ordinal, s.text, s.char_len, s.hash, s.prev_id, s.next_id,"
        " d.n_sections FROM sections s JOIN documents d USING(doc_id)",
    ):
        assert sid == f"{path}#{ordinal}"
        assert char_len == len(text) and digest == hashlib.sha256(text.encode()).hexdigest()
        assert prev_id == (f"{path}#{ordinal - 1}" if ordinal else None)
        assert next_id == (f"{path}#{ordinal + 1}" if ordinal + 1 < n else None)


def test_table_continuations_begin_with_header(store: Path) -> None:
    tables = rows(store, "SELECT text FROM sections WHERE kind = 'table' ORDER BY ordinal")
    assert len(tables) > 1
    assert tables[0][0].startswith("## Big table\n\n| id | value |\n|---|---|")
    for (text,) in tables[1:]:
        assert text.startswith("| id | value |\n|---|---|\n| ") and "## Big" not in text
        assert len(text) <= 2000


def test_fts_columns_are_normalised_but_text_verbatim(store: Path) -> None:
    (fts_text,) = rows(store, "SELECT text FROM sections_fts WHERE id = 'b.md#0'")[0]
    (text,) = rows(store, "SELECT text FROM sections WHERE id = 'b.md#0'")[0]
    assert "--no-cache" in text and "`no-cache`" in fts_text and "stop." in text
    assert "stop." not in fts_text


def test_meta_and_side_tables(store: Path) -> None:
    meta = dict(rows(store, "SELECT key, value FROM meta"))
    assert set(meta) == {"schema_version", "corpus_root", "corpus_fingerprint", "index_text",
                         "index_tokens", "index_mode", "summarizer", "section_max_chars",
                         "ingested_at"}  # fmt: skip
    assert meta["schema_version"] == "1.0" and meta["section_max_chars"] == "2000"
    assert meta["index_text"].startswith("ContextPull index · corpus · 3 documents")
    assert meta["index_mode"] == "flat" and int(meta["index_tokens"]) > 0
    side = rows(store, "SELECT language, tokens FROM repoctx_documents WHERE doc_id = 3")
    assert side == [("python", 7)]
    spans = rows(store, "SELECT start_line, end_line, symbol FROM repoctx_sections"
                 " WHERE id = 'src/m.py#0'")  # fmt: skip
    assert spans == [(1, 2, "f")]
    assert rows(store, "PRAGMA journal_mode") == [("delete",)]


def test_build_settings_leave_a_usual_file(store: Path) -> None:
    assert rows(store, "PRAGMA page_size") == [(16384,)]
    # the build ran without FTS5 automerge; the file keeps FTS5's default for later writers
    assert ("automerge", 4) in rows(store, "SELECT k, v FROM sections_fts_config")
    assert rows(store, "INSERT INTO sections_fts(sections_fts) VALUES ('integrity-check')") == []


def test_fingerprint_rule() -> None:
    expected = hashlib.sha256(b"a\0" + b"1" * 64 + b"\0").hexdigest()[:16]
    assert corpus_fingerprint([("a", "1" * 64)]) == expected


def test_paths_normalised_or_refused() -> None:
    assert normalise_path("./x/y.md") == "x/y.md"
    for bad in ("../x.md", "/abs.md", "a//b.md", ""):
        with pytest.raises(ContextPullError):
            normalise_path(bad)


def test_duplicate_paths_refused(tmp_path: Path) -> None:
    with pytest.raises(ContextPullError, match="twice"):
        write_export(tmp_path / "s.db", [DOCS[0], DOCS[0]], corpus_root="r")


def test_reexport_reuses_unchanged_and_keeps_embeddings(store: Path, tmp_path: Path) -> None:
    conn = sqlite3.connect(store)
    conn.execute("INSERT INTO embeddings VALUES ('a.txt#0', 'toy', 1, x'0000803f')")
    conn.execute("UPDATE documents SET summary = 'marker' WHERE path = 'a.txt'")
    conn.commit()
    conn.close()
    changed = SourceDocument("b.md", b"# B\n\nNew body that is long enough to keep.")
    report = write_export(store, [DOCS[0].__class__("a.txt", DOCS[1].data), changed, DOCS[2]],
                          corpus_root="/x/corpus", previous=store)  # fmt: skip
    assert (report.reused, report.sectioned, report.documents) == (2, 1, 3)
    assert rows(store, "SELECT summary FROM documents WHERE path = 'a.txt'") == [("marker",)]
    assert rows(store, "SELECT section_id FROM embeddings") == [("a.txt#0",)]
    assert rows(store, "SELECT count(*) FROM sections WHERE doc_id = 2") == [(1,)]
    assert list(tmp_path.iterdir()) == [store]  # no temp or journal files left


def test_reader_holding_old_file_keeps_its_view(store: Path) -> None:
    with Reader(store) as old:
        write_export(store, [SourceDocument("z.md", b"# Z\n\nEntirely new content here.")],
                     corpus_root="r")  # fmt: skip
        assert old.read("b.md#0")["id"] == "b.md#0"
        assert old.meta.index_text.startswith("ContextPull index · corpus · 3 documents")
    with Reader(store) as new:
        assert new.index()["text"].startswith("ContextPull index · r · 1 documents")


def test_small_budget_changes_index_mode(tmp_path: Path) -> None:
    docs = [SourceDocument(f"d{i}/f{i}.md", f"# Doc {i}\n\nBody {i}.".encode()) for i in range(60)]
    report = write_export(tmp_path / "s.db", docs, corpus_root="r", index_budget=120)
    assert report.index_mode in ("compact", "hierarchical") and report.index_tokens <= 120


def test_a_patch_that_frees_most_pages_is_written_compact(store: Path, tmp_path: Path) -> None:
    def grow(conn: sqlite3.Connection, changed: set[int] | None) -> None:
        conn.execute("CREATE TABLE repoctx_search_scratch(blob BLOB)")
        conn.executemany("INSERT INTO repoctx_search_scratch VALUES (?)",
                         [(b"x" * 60_000,) for _ in range(40)])

    def drop(conn: sqlite3.Connection, changed: set[int] | None) -> None:
        assert changed == set()  # a patch
        # patched in place: what the patch replaced (the changed document) is attached
        assert rows_of(conn, "SELECT path FROM previous.documents") == [("b.md",)]
        conn.execute("DROP TABLE repoctx_search_scratch")

    def rows_of(conn: sqlite3.Connection, query: str) -> list[tuple]:
        return conn.execute(query).fetchall()

    write_export(store, [*DOCS, *NOTES], corpus_root="/x/corpus", finalize=grow)
    grown = store.stat().st_size
    report = _patch_b(store, finalize=drop)
    assert report.patched
    assert rows(store, "PRAGMA freelist_count") == [(0,)]
    assert store.stat().st_size * 4 < grown
    assert rows(store, "PRAGMA journal_mode") == [("delete",)]
    assert list(tmp_path.iterdir()) == [store]  # no temp or compact files left


def _scratch(n: int):
    """A finalize hook that adds ``n`` 60 kB rows then drops them (free pages left)."""
    def hook(conn: sqlite3.Connection, changed: set[int] | None) -> None:
        conn.execute("CREATE TABLE repoctx_search_scratch(blob BLOB)")
        conn.executemany("INSERT INTO repoctx_search_scratch VALUES (?)",
                         [(b"x" * 60_000,) for _ in range(n)])
        conn.execute("DROP TABLE repoctx_search_scratch")  # the writer commits a hook's work
    return hook


def test_a_full_build_gives_its_free_pages_back_in_place(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    write_export(store, DOCS, corpus_root="/x/corpus", finalize=_scratch(8))  # 1/8 free
    assert rows(store, "PRAGMA auto_vacuum") == [(2,)]  # incremental
    assert rows(store, "PRAGMA freelist_count") == [(0,)]
    plain = tmp_path / "plain.db"
    write_export(plain, DOCS, corpus_root="/x/corpus")
    assert store.stat().st_size == plain.stat().st_size  # the scratch rows' pages are gone
    with Reader(store) as reader:  # an ordinary store still
        assert reader.read("b.md#0")["id"] == "b.md#0"


def test_an_older_export_without_auto_vacuum_is_still_patched_and_compacted(
        tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    write_export(store, [*DOCS, *NOTES], corpus_root="/x/corpus")
    with sqlite3.connect(store) as conn:  # as an older writer left it
        conn.execute("PRAGMA auto_vacuum = NONE")
        conn.execute("VACUUM")
    assert rows(store, "PRAGMA auto_vacuum") == [(0,)]
    report = _patch_b(store, finalize=_scratch(40))
    assert report.patched
    assert rows(store, "PRAGMA freelist_count") == [(0,)]  # VACUUM INTO, as before
    assert rows(store, "PRAGMA auto_vacuum") == [(0,)]
    with Reader(store) as reader:
        assert reader.read("b.md#0")["text"].startswith("# B")


def test_an_export_with_the_older_rowid_side_table_is_rewritten_not_patched(
        tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    write_export(store, [*DOCS, *NOTES], corpus_root="/x/corpus")
    assert rows(store, "SELECT count(*) FROM sqlite_master"
                       " WHERE name = 'sqlite_autoindex_repoctx_sections_1'") == [(0,)]
    with sqlite3.connect(store) as conn:  # the side table as an older writer left it
        conn.execute("ALTER TABLE repoctx_sections RENAME TO kept")
        conn.execute("CREATE TABLE repoctx_sections(id TEXT PRIMARY KEY REFERENCES"
                     " sections(id) ON DELETE CASCADE, start_line INTEGER, end_line INTEGER,"
                     " tokens INTEGER, symbol TEXT)")
        conn.execute("INSERT INTO repoctx_sections SELECT * FROM kept")
        conn.execute("DROP TABLE kept")
    report = _patch_b(store)
    assert not report.patched
    (sql_text,) = rows(store, "SELECT sql FROM sqlite_master WHERE name = 'repoctx_sections'")
    assert sql_text[0].endswith("WITHOUT ROWID")
    with Reader(store) as reader:
        assert reader.read("b.md#0")["text"].startswith("# B")
