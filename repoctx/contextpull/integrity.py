"""`contextpull/integrity` — is an export file sound: SQLite's own check, schema, content.

``check_export`` opens the file read-only and lists every problem it finds, in words:
SQLite's ``PRAGMA integrity_check`` (pages, indexes, the FTS shadow tables' b-trees), the
ContextPull schema (every table and column of ``schema_statements``; extra tables are
allowed), ``meta.schema_version`` of a major version this reader supports, and the
counts that must agree (sections, their FTS rows, the documents' ``n_sections``), and
the content: every section's text against its stored SHA-256 and length, and every
``sections_fts`` row against the section it indexes (a byte changed inside a page
passes SQLite's own check: only the data can tell). A damaged section is named by
table, section id and document path. An empty list means sound. Reads only; never
raises for a damaged file.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path

from repoctx.contextpull import sql
from repoctx.contextpull.connection import read_only_uri
from repoctx.contextpull.schema import SUPPORTED_MAJOR, schema_statements
from repoctx.contextpull.tokens import normalise_fts_text

_CREATE_TABLE = re.compile(r"CREATE (?:VIRTUAL )?TABLE (\w+)")
_MAX_LINES = 20
"""Lines of ``integrity_check`` output kept."""
MAX_DAMAGED = 50
"""Damaged sections named one by one; past this many, a count."""


def expected_columns() -> dict[str, list[str]]:
    """Every table of the schema and its column names, in order."""
    conn = sqlite3.connect(":memory:")
    try:
        for statement in schema_statements():
            conn.execute(statement)
        return {table: _columns(conn, table) for table in _tables(schema_statements())}
    finally:
        conn.close()


def check_export(path: Path) -> list[str]:
    """Every problem of the export file at ``path`` (an empty list: it is sound)."""
    if not path.is_file():
        return [f"no export at {path}"]
    try:
        conn = sqlite3.connect(read_only_uri(path), uri=True)
    except sqlite3.Error as exc:
        return [f"{path} cannot be opened: {exc}"]
    conn.text_factory = _text  # damaged text (and integrity_check's report of it) is data
    try:
        problems = _integrity(conn)
        if not problems:
            problems = _schema(conn) or _meta(conn) or _counts(conn) or _content(conn)
        return [f"{path}: {p}" for p in problems]
    except (sqlite3.Error, ValueError) as exc:  # a damaged file fails anywhere: the finding
        return [f"{path}: {exc}"]
    finally:
        conn.close()


def _text(data: bytes) -> str:
    return data.decode(errors="replace")


def _integrity(conn: sqlite3.Connection) -> list[str]:
    rows = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchmany(_MAX_LINES)]
    return [] if rows == ["ok"] else [f"integrity_check: {row}" for row in rows]


def _schema(conn: sqlite3.Connection) -> list[str]:
    problems = []
    for table, columns in expected_columns().items():
        found = _columns(conn, table)
        if not found:
            problems.append(f"table {table} is missing")
        elif found != columns:
            problems.append(f"table {table} has columns {found}, the schema says {columns}")
    return problems


def _meta(conn: sqlite3.Connection) -> list[str]:
    row = conn.execute(sql.META_VALUE, ("schema_version",)).fetchone()
    if row is None:
        return ["meta has no schema_version"]
    if str(row[0]).split(".")[0] != str(SUPPORTED_MAJOR):
        return [f"schema_version {row[0]} is not major version {SUPPORTED_MAJOR}"]
    return []


def _counts(conn: sqlite3.Connection) -> list[str]:
    sections = conn.execute("SELECT count(*) FROM sections").fetchone()[0]
    indexed = conn.execute("SELECT count(*) FROM sections_fts").fetchone()[0]
    declared = conn.execute("SELECT coalesce(sum(n_sections), 0) FROM documents").fetchone()[0]
    problems = []
    if indexed != sections:
        problems.append(f"{sections} sections but {indexed} rows in sections_fts")
    if declared != sections:
        problems.append(f"documents declare {declared} sections but {sections} are stored")
    return problems


def _content(conn: sqlite3.Connection) -> list[str]:
    """Each section whose text, or whose ``sections_fts`` row, is not what was written."""
    damaged: list[str] = []
    for rowid, sid, path, heading, text, char_len, digest, fts_id, fts_heading, fts_text in \
            conn.execute(sql.SECTIONS_WITH_FTS):
        where = f"section {sid} of {path}"
        if hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() != digest:
            damaged.append(f"sections: {where}: its text does not match its SHA-256")
        elif len(text) != char_len:
            damaged.append(f"sections: {where}: {len(text)} characters, char_len says {char_len}")
        if (fts_id, fts_heading, fts_text) != (sid, normalise_fts_text(heading),
                                              normalise_fts_text(text)):
            damaged.append(f"sections_fts: row {rowid} ({where}) does not match its section")
    if len(damaged) > MAX_DAMAGED:
        damaged[MAX_DAMAGED:] = [f"and {len(damaged) - MAX_DAMAGED} more damaged sections"]
    return damaged


def _tables(statements: list[str]) -> list[str]:
    """Table names of CREATE statements, in order."""
    return [m.group(1) for m in map(_CREATE_TABLE.match, statements) if m]


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')]
