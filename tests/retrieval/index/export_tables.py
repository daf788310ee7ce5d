"""Every table of an export as comparable values: what an incremental export must share
with a fresh one of the same tree.

Rowids and symbol ids are the writer's numbering (a patch keeps the rowids of the
sections it keeps; a fresh export numbers from 1), so rows that name them name the
section id or the symbol's ``(fq, path)`` instead; the contentless FTS5 tables are
compared by their postings and sizes. Run timestamps are left out.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

_TIMESTAMPS = {"meta": ("exported_at", "ingested_at"), "repoctx_meta": ("stats_since_ns",)}
_FTS = ("sections_fts", "repoctx_search_text", "repoctx_search_text_aux", "repoctx_search_names")
_SHADOW = ("_data", "_idx", "_docsize", "_config", "_content")


def _section_ids(conn: sqlite3.Connection) -> dict[int, str]:
    return dict(conn.execute("SELECT rowid, id FROM sections"))


def _postings(conn: sqlite3.Connection, table: str, ids: dict[int, str]) -> list[tuple]:
    conn.execute(f"CREATE VIRTUAL TABLE temp.{table}_v USING fts5vocab(main, {table}, 'instance')")
    try:
        rows = conn.execute(f"SELECT term, doc, col, offset FROM temp.{table}_v").fetchall()
    finally:
        conn.execute(f"DROP TABLE temp.{table}_v")
    sizes = conn.execute(f"SELECT id, sz FROM {table}_docsize").fetchall()
    return sorted((t, ids[d], c, o) for t, d, c, o in rows) + sorted(
        (ids[d], sz) for d, sz in sizes)


def _rows(conn: sqlite3.Connection, table: str, ids: dict[int, str]) -> list[tuple]:
    if table in _TIMESTAMPS:
        return sorted(conn.execute(f"SELECT * FROM {table} WHERE key NOT IN"
                                   f" ({', '.join('?' * len(_TIMESTAMPS[table]))})",
                                   _TIMESTAMPS[table]))
    if table == "documents":
        return sorted(conn.execute("SELECT doc_id, path, title, summary, summary_src, sha256,"
                                   " bytes, kind, n_sections FROM documents"))
    if table == "repoctx_documents":
        return sorted(conn.execute("SELECT doc_id, language, tokens FROM repoctx_documents"))
    if table == "sections_fts":
        return sorted(conn.execute("SELECT id, heading_path, text FROM sections_fts"))
    if table == "repoctx_search_rows":
        return sorted((ids[r], digest) for r, _, digest in
                      conn.execute("SELECT rowid, section_id, digest FROM repoctx_search_rows"))
    if table == "repoctx_search_symbols":
        return sorted((*rest, ids[r]) for _, *rest, r in
                      conn.execute("SELECT * FROM repoctx_search_symbols"))
    if table == "repoctx_search_symbol_parts":
        return sorted(conn.execute(
            "SELECT p.part, y.fq, y.path FROM repoctx_search_symbol_parts p"
            " LEFT JOIN repoctx_search_symbols y ON y.id = p.symbol_id"))
    return sorted(conn.execute(f"SELECT * FROM {table}"), key=repr)


def export_tables(path: Path) -> dict[str, list[tuple]]:
    """Table name -> its rows (see the module's docstring), for every table of ``path``."""
    conn = sqlite3.connect(path)
    try:
        ids = _section_ids(conn)
        names = [n for (n,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        fts = [n for n in names if n in _FTS]
        plain = [n for n in names if not any(n.startswith(f) and n[len(f):] in _SHADOW
                                             for f in fts)]
        tables = {n: _rows(conn, n, ids) for n in plain if n not in _FTS or n == "sections_fts"}
        tables.update({f"{n} (postings)": _postings(conn, n, ids) for n in fts})
        return tables
    finally:
        conn.close()
