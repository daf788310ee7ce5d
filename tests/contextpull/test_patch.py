"""Copy-and-patch re-export: the result equals a full export of the same documents."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from repoctx.contextpull import Reader, SourceDocument, write_export
from repoctx.contextpull.patch import MAX_GONE_SHARE

from .conftest import build_raw_store


def doc(path: str, body: str) -> SourceDocument:
    return SourceDocument(path, f"# {path}\n\n{body} This sentence is long enough.\n".encode())


BASE = {f"d{i:02d}.md": f"Body of document {i}." for i in range(10)}
TABLES = {
    "documents": "SELECT doc_id, path, title, summary, summary_src, sha256, bytes, kind,"
    " n_sections FROM documents ORDER BY doc_id",
    "sections": "SELECT id, doc_id, ordinal, heading_path, level, kind, text, char_len, hash,"
    " prev_id, next_id FROM sections ORDER BY id",
    "fts": "SELECT id, heading_path, text FROM sections_fts ORDER BY id",
    "side_docs": "SELECT doc_id, language, tokens FROM repoctx_documents ORDER BY doc_id",
    "side_sections": "SELECT * FROM repoctx_sections ORDER BY id",
    "embeddings": "SELECT * FROM embeddings ORDER BY section_id",
    "meta": "SELECT key, value FROM meta WHERE key <> 'ingested_at' ORDER BY key",
    "ours": "SELECT key, value FROM repoctx_meta ORDER BY key",
    "aligned": "SELECT count(*) FROM sections s JOIN sections_fts f ON f.rowid = s.rowid"
    " WHERE f.id = s.id",
}


def dump(path: Path, queries: dict[str, str] = TABLES) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        return {name: conn.execute(query).fetchall() for name, query in queries.items()}
    finally:
        conn.close()


def export(path: Path, files: dict[str, str], previous: Path | None = None):
    docs = [doc(name, body) for name, body in files.items()]
    return write_export(path, docs, corpus_root="/x/c", previous=previous)


@pytest.mark.parametrize(
    "change",
    [
        {"d03.md": "Changed body."},  # content only: ids kept
        {"a-first.md": "Added before every other path."},  # every id moves up
        {"d04.md": None, "d07.md": "Changed too."},  # removed in the middle
        {"d05b.md": "Inserted in the middle.", "d09.md": None},
    ],
)
def test_patch_equals_full_export(tmp_path: Path, change: dict[str, str | None]) -> None:
    export(tmp_path / "old.db", BASE)
    files = {**BASE, **{k: v for k, v in change.items() if v is not None}}
    files = {k: v for k, v in files.items() if change.get(k, "") is not None}
    patched = export(tmp_path / "new.db", files, previous=tmp_path / "old.db")
    full = export(tmp_path / "full.db", files)
    assert patched.patched and not full.patched
    assert patched.sectioned == sum(1 for v in change.values() if v is not None)
    expected, got = dump(tmp_path / "full.db"), dump(tmp_path / "new.db")
    assert got == expected
    assert got["aligned"] == [(len(got["sections"]),)]
    with Reader(tmp_path / "new.db") as reader:
        hits = reader.search("sentence", limit=50)["hits"]
        assert sorted(hit["doc"] for hit in hits) == sorted(files)


def test_embeddings_of_kept_documents_survive_and_changed_ones_go(tmp_path: Path) -> None:
    export(tmp_path / "s.db", BASE)
    conn = sqlite3.connect(tmp_path / "s.db")
    conn.executemany("INSERT INTO embeddings VALUES (?, 'toy', 1, x'0000803f')",
                     [("d01.md#0",), ("d02.md#0",)])  # fmt: skip
    conn.commit()
    conn.close()
    report = export(tmp_path / "s.db", {**BASE, "d02.md": "New."}, previous=tmp_path / "s.db")
    assert report.patched and report.reused == 9
    assert dump(tmp_path / "s.db")["embeddings"] == [("d01.md#0", "toy", 1, b"\x00\x00\x80?")]


def test_falls_back_to_full_rewrite(tmp_path: Path) -> None:
    raw = build_raw_store(tmp_path / "raw.db", {"d01.md": [("d01", "prose", "x")]})
    assert not export(tmp_path / "a.db", BASE, previous=raw).patched  # another writer's file
    export(tmp_path / "b.db", BASE)
    most = {f"n{i}.md": "Other." for i in range(int(len(BASE) * MAX_GONE_SHARE) + 1)}
    report = export(tmp_path / "c.db", most, previous=tmp_path / "b.db")
    assert not report.patched and report.reused == 0


def test_an_unchanged_index_is_not_recounted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from repoctx.contextpull import index_text

    first = export(tmp_path / "old.db", BASE)

    def no_count(text: str) -> int:
        raise AssertionError("the index text did not change: its count is stored")

    monkeypatch.setattr(index_text, "count_tokens", no_count)
    again = export(tmp_path / "new.db", BASE, previous=tmp_path / "old.db")
    assert again.patched and again.index_tokens == first.index_tokens
    assert dump(tmp_path / "new.db") == dump(tmp_path / "old.db")
