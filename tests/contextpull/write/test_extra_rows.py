"""contextpull/write/extra_rows: a finalize hook's section rows, computed beside the sectioning
and inserted with the sections' own rowids on a full rewrite; a patch leaves them to the
hook."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence

import pytest

from repoctx.contextpull import write_export
from repoctx.contextpull.sections.documents import Definition, SourceDocument
from repoctx.contextpull.write import pool
from repoctx.contextpull.write.extra_rows import section_rows_of
from repoctx.contextpull.write.records import DocumentRows

_BODY = "A paragraph long enough to be a section of its own, not glued on. " * 3
DOCS = [SourceDocument(f"d{i:03d}.md", f"# Doc {i}\n\n{_BODY}\n\n## Part\n\n{i} {_BODY}".encode())
        for i in range(12)]


class LengthRows:
    """Each section's text length and the worker that measured it, in ``repoctx_search_len``
    (a hook's tables are named ``repoctx_search_*``: they never decide whether a previous
    export can be patched, ``contextpull/sql.TABLE_SQL``)."""

    def compute(self, rows: DocumentRows, declared: Sequence[object] | None) -> object:
        return [(len(s.text), os.getpid(), declared) for s in rows.sections]

    def open(self, conn: sqlite3.Connection) -> LengthSink:
        conn.execute("CREATE TABLE repoctx_search_len(rowid INTEGER PRIMARY KEY, id TEXT,"
                     " n INTEGER, pid INTEGER, declared TEXT)")
        return LengthSink(conn)


class LengthSink:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn, self.closed = conn, False

    def add(self, path: str, rowid: int, section_ids: Sequence[str], computed: object) -> None:
        assert isinstance(computed, list) and all(i.startswith(path + "#") for i in section_ids)
        self.conn.executemany("INSERT INTO repoctx_search_len VALUES (?, ?, ?, ?, ?)", [
            (rowid + k, sid, n, pid, repr(declared))
            for k, (sid, (n, pid, declared)) in enumerate(zip(section_ids, computed, strict=True))])

    def close(self) -> None:
        self.conn.execute("CREATE TABLE repoctx_search_closed(x)")


class Hook:
    """A finalize hook carrying ``LengthRows``; records what it was called with."""

    section_rows = LengthRows()

    def __init__(self) -> None:
        self.calls: list[set[int] | None] = []

    def __call__(self, conn: sqlite3.Connection, changed: set[int] | None) -> None:
        self.calls.append(changed)


class Declaring:
    """A definitions source that splits; its portions' ``declared`` is called in the
    workers."""

    def __init__(self, paths: frozenset[str] = frozenset()) -> None:
        self.paths = paths

    def portion(self, items):  # type: ignore[no-untyped-def]
        return items, Declaring(frozenset(item.path for item in items))

    def declared(self, path: str, sha256: str) -> list[str] | None:
        return [f"{path}:{sha256[:8]}"] if path in self.paths else None

    def __call__(self, path: str, data: bytes) -> tuple[Definition, ...] | None:
        return None


def _rows(out):
    with sqlite3.connect(out) as conn:
        expected = conn.execute("SELECT s.rowid, s.id, length(s.text) FROM sections s"
                                " ORDER BY 1").fetchall()
        got = conn.execute("SELECT rowid, id, n, pid, declared FROM repoctx_search_len"
                           " ORDER BY 1").fetchall()
        closed = conn.execute("SELECT count(*) FROM sqlite_master"
                              " WHERE name = 'repoctx_search_closed'").fetchone()[0]
        shas = dict(conn.execute("SELECT path, sha256 FROM documents"))
    return expected, got, closed, shas


@pytest.mark.parametrize("workers", [0, 2])
def test_a_full_rewrite_inserts_the_rows_with_the_sections_rowids(tmp_path, monkeypatch,
                                                                   workers):
    monkeypatch.setattr(pool, "POOL_MIN_DOCUMENTS", 1 if workers else 10**6)
    monkeypatch.setattr(pool, "CHUNK_DOCUMENTS", 3)
    monkeypatch.setattr(pool, "default_workers", lambda: workers)
    out, hook = tmp_path / "e.sqlite", Hook()
    write_export(out, DOCS, corpus_root="r", finalize=hook, definitions_for=Declaring())
    expected, got, closed, shas = _rows(out)
    assert len(expected) > len(DOCS) and closed == 1 and hook.calls == [None]
    assert [r[:3] for r in got] == expected
    assert all(r[4] == repr([f"{r[1].split('#')[0]}:{shas[r[1].split('#')[0]][:8]}"])
               for r in got)
    pids = {r[3] for r in got}
    assert (os.getpid() not in pids) if workers else (pids == {os.getpid()})


def test_a_patch_leaves_the_rows_to_the_hook(tmp_path):
    out, hook = tmp_path / "e.sqlite", Hook()
    write_export(out, DOCS, corpus_root="r", finalize=hook)
    changed = [SourceDocument(DOCS[0].path, b"# Changed\n\nNew text."), *DOCS[1:]]
    write_export(out, changed, corpus_root="r", previous=out, finalize=hook)
    assert hook.calls == [None, set()]
    # The changed document's sections (new rowids, or kept ones with new text): none of
    # their rows built here, so the hook's table still holds what the first export wrote.
    with sqlite3.connect(out) as conn:
        (new,) = conn.execute("SELECT count(*) FROM sections s WHERE s.id LIKE ? AND NOT"
                              " EXISTS (SELECT 1 FROM repoctx_search_len l WHERE"
                              " l.rowid = s.rowid AND l.n = length(s.text))",
                              (DOCS[0].path + "#%",)).fetchone()
    assert new >= 1


def test_section_rows_of_a_plain_hook_is_none():
    assert section_rows_of(lambda conn, changed: None) is None
    assert isinstance(section_rows_of(Hook()), LengthRows)
