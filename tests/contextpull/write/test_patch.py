"""Patched re-exports (in place, or of a copy): the result equals a full export of the
same documents, and a reader never sees a mix of the two states."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from repoctx.contextpull import Reader, SourceDocument, write_export
from repoctx.contextpull.write.patch import MAX_GONE_SHARE
from tests.contextpull.conftest import build_raw_store


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


CHANGES = [
    {"d03.md": "Changed body."},  # content only: ids kept
    {"a-first.md": "Added before every other path."},  # every id moves up
    {"d04.md": None, "d07.md": "Changed too."},  # removed in the middle
    {"d05b.md": "Inserted in the middle.", "d09.md": None},
]


def changed(change: dict[str, str | None]) -> dict[str, str]:
    files = {**BASE, **{k: v for k, v in change.items() if v is not None}}
    return {k: v for k, v in files.items() if change.get(k, "") is not None}


@pytest.mark.parametrize("change", CHANGES)
def test_patch_equals_full_export(tmp_path: Path, change: dict[str, str | None]) -> None:
    export(tmp_path / "old.db", BASE)
    files = changed(change)
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
    from repoctx.contextpull.write import index_text

    first = export(tmp_path / "old.db", BASE)

    def no_count(text: str) -> int:
        raise AssertionError("the index text did not change: its count is stored")

    monkeypatch.setattr(index_text, "count_tokens", no_count)
    again = export(tmp_path / "new.db", BASE, previous=tmp_path / "old.db")
    assert again.patched and again.index_tokens == first.index_tokens
    assert dump(tmp_path / "new.db") == dump(tmp_path / "old.db")


@pytest.mark.parametrize("change", CHANGES)
def test_an_in_place_patch_leaves_the_rows_of_a_full_export(
    tmp_path: Path, change: dict[str, str | None]
) -> None:
    out = tmp_path / "s.db"
    export(out, BASE)
    inode = out.stat().st_ino
    files = changed(change)
    report = export(out, files, previous=out)
    export(tmp_path / "full.db", files)
    assert report.patched and out.stat().st_ino == inode  # patched where it lies
    assert dump(out) == dump(tmp_path / "full.db")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full.db", "s.db"]  # no journal


def test_a_file_changed_under_an_in_place_plan_is_patched_as_a_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from repoctx.contextpull.write import previous

    out = tmp_path / "s.db"
    export(out, BASE)
    real = previous.file_token

    def stale(path: Path) -> previous.FileToken | None:
        token = real(path)  # as if another writer committed after the plan was read
        return None if token is None else (*token[:2], b"\0\0\0\0")

    monkeypatch.setattr(previous, "file_token", stale)
    inode = out.stat().st_ino
    files = changed(CHANGES[0])
    report = export(out, files, previous=out)
    export(tmp_path / "full.db", files)
    assert report.patched and out.stat().st_ino != inode  # a copy, renamed into place
    assert dump(out) == dump(tmp_path / "full.db")


def _state(conn: sqlite3.Connection) -> tuple[str, str]:
    """``meta.corpus_fingerprint`` and the fingerprint of the documents' rows, read in one
    read transaction: equal when the reader saw one committed state."""
    from repoctx.contextpull.write.writer import corpus_fingerprint

    conn.execute("BEGIN")
    try:
        (meta,) = conn.execute(
            "SELECT value FROM meta WHERE key = 'corpus_fingerprint'").fetchone()
        rows = conn.execute("SELECT path, sha256 FROM documents ORDER BY doc_id").fetchall()
        return meta, corpus_fingerprint(rows)
    finally:
        conn.execute("COMMIT")


def test_a_reader_during_in_place_patches_sees_the_old_state_or_the_new(tmp_path: Path) -> None:
    import threading

    from repoctx.contextpull.connection import connect_read_only

    out = tmp_path / "s.db"
    big = {f"d{i:03d}.md": f"Body of document {i}. " * 40 for i in range(200)}
    other = {**big, **{f"d{i:03d}.md": f"Another body {i}. " * 40 for i in range(0, 200, 3)}}
    states = {export(out, other).corpus_fingerprint, export(out, big).corpus_fingerprint}
    seen: list[tuple[str, str]] = []
    stop = threading.Event()

    def read() -> None:
        conn = connect_read_only(out)
        conn.isolation_level = None  # BEGIN / COMMIT by hand: one snapshot per _state
        while not stop.is_set():
            seen.append(_state(conn))
        conn.close()

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for files in [other, big] * 4:
            assert export(out, files, previous=out).patched
    finally:
        stop.set()
        reader.join()
    assert len(seen) > 8
    assert all(meta == rows and meta in states for meta, rows in seen)
    assert {meta for meta, _ in seen} == states  # both states were read


def _index(root: Path, store: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "repoctx", "index", str(root), "--store", str(store),
         "--repo-id", "demo", "--json"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _write_tree(root: Path, version: int, changed: range) -> None:
    for i in range(400):
        text = f"Body of document {i}, version {version if i in changed else 0}. " * 30
        body = f"# Doc {i}\n\n{text}\n\n## Part\n\n{text}\n"
        path = root / f"docs/d{i:03d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != body:
            path.write_text(body)


def test_a_killed_in_place_patch_leaves_a_readable_export_that_the_next_index_heals(
    tmp_path: Path,
) -> None:
    root, store = tmp_path / "repo", tmp_path / "store"
    out, journal = store / "contextpull.sqlite", store / "contextpull.sqlite-journal"
    _write_tree(root, 0, range(0))
    assert _index(root, store).wait(300) == 0
    old = Reader(out).meta.corpus_fingerprint
    killed = False
    for version in range(1, 4):  # a run too quick to catch is simply tried again
        _write_tree(root, version, range(0, 400, 3))  # a third changed: a patch
        victim = _index(root, store)
        while victim.poll() is None and not journal.exists():
            time.sleep(0.0005)
        if victim.poll() is None:
            victim.send_signal(signal.SIGKILL)
            killed = victim.wait() == -signal.SIGKILL
            if killed:
                break
        old = Reader(out).meta.corpus_fingerprint
    assert killed, "no patch could be caught mid-transaction"
    assert journal.exists()  # killed inside the transaction: its hot journal is left
    with Reader(out) as reader:  # opens read-only, rolling the journal back
        assert reader.meta.corpus_fingerprint == old  # the old state, whole
        assert len(reader.search("document", limit=5)["hits"]) == 5
    conn = sqlite3.connect(f"file:{out}?mode=ro", uri=True)  # any reader, from now on
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert _state(conn)[0] == _state(conn)[1] == old
    conn.close()
    healed = _index(root, store)
    assert healed.wait(300) == 0, healed.stderr.read() if healed.stderr else ""
    fresh = _index(root, tmp_path / "fresh")
    assert fresh.wait(300) == 0
    assert not journal.exists()
    queries = {**TABLES, "ours": "SELECT key, value FROM repoctx_meta"
               " WHERE key <> 'stats_since_ns' ORDER BY key"}  # when each run began
    assert dump(out, queries) == dump(tmp_path / "fresh" / "contextpull.sqlite", queries)


def test_a_reader_that_never_lets_go_gets_a_copy_patched_instead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from repoctx.contextpull import connection

    monkeypatch.setattr(connection, "PATCH_BUSY_SECONDS", 0.2)
    out = tmp_path / "s.db"
    export(out, BASE)
    inode = out.stat().st_ino
    reader = sqlite3.connect(f"file:{out}?mode=ro", uri=True, isolation_level=None)
    reader.execute("BEGIN")
    before = reader.execute(
        "SELECT value FROM meta WHERE key = 'corpus_fingerprint'").fetchone()  # lock held
    files = changed(CHANGES[0])
    report = export(out, files, previous=out)
    assert report.patched and out.stat().st_ino != inode  # the commit gave up: a copy
    assert reader.execute("SELECT value FROM meta WHERE key = 'corpus_fingerprint'"
                          ).fetchone() == before  # the reader's file, untouched
    reader.execute("COMMIT")
    reader.close()
    export(tmp_path / "full.db", files)
    assert dump(out) == dump(tmp_path / "full.db")


def _long(parts: list[str]) -> str:
    return "".join(f"\n\n## Part {p}\n\n{p} " + "words of this part. " * 120 for p in parts)


LONG_EDITS = {
    "middle": ["alpha", "beta", "gamma changed", "delta", "epsilon"],
    "append": ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"],
    "truncate": ["alpha", "beta"],
    "insert": ["alpha", "beta", "inserted", "gamma", "delta", "epsilon"],
    "middle, ids up": ["alpha", "beta", "gamma changed", "delta", "epsilon"],
    "middle, ids down": ["alpha", "beta", "gamma changed", "delta", "epsilon"],
}


@pytest.mark.parametrize("in_place", [True, False], ids=["in-place", "copy"])
@pytest.mark.parametrize("edit", sorted(LONG_EDITS))
def test_a_changed_document_keeps_the_rowids_of_its_unchanged_sections(
    tmp_path: Path, edit: str, in_place: bool
) -> None:
    """A section the changed document still has (same id) keeps its rowid, and
    the rows are those of a full export (an updated row with a stale value, a left-over
    section or FTS row fails the dump or the search)."""
    files = {**BASE, "b-gone.md": "Removed in one case.",
             "c-long.md": _long(["alpha", "beta", "gamma", "delta", "epsilon"])}
    first = tmp_path / "s.db"
    export(first, files)
    rowids = "SELECT id, rowid FROM sections WHERE id LIKE 'c-long.md#%'"
    before = dict(dump(first, {"r": rowids})["r"])
    assert len(before) >= 5
    files["c-long.md"] = _long(LONG_EDITS[edit])
    if edit.endswith("ids up"):  # the changed document's doc_id moves too
        files["a-first.md"] = "Added before every other path."
    elif edit.endswith("ids down"):
        del files["b-gone.md"]
    out = first if in_place else tmp_path / "patched.db"
    assert export(out, files, previous=first).patched
    export(tmp_path / "full.db", files)
    got = dump(out)
    assert got == dump(tmp_path / "full.db")
    assert got["aligned"] == [(len(got["sections"]),)]
    after = dict(dump(out, {"r": rowids})["r"])
    kept = [sid for sid in after if sid in before]
    assert kept and all(after[sid] == before[sid] for sid in kept)  # same id, same rowid
    assert all(after[sid] > max(before.values()) for sid in after if sid not in before)
    with Reader(out) as reader:
        hits = {hit["doc"] for hit in reader.search("epsilon", limit=50)["hits"]}
        assert hits == ({"c-long.md"} if "epsilon" in LONG_EDITS[edit] else set())
        changed = reader.search("changed", limit=50)["hits"]
        assert bool(changed) == edit.startswith("middle")
