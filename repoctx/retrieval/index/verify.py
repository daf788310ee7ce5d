"""retrieval/index/verify — do the search tables agree with the sections they index.

``repoctx check`` asks this after ContextPull's own check (``contextpull.integrity``)
found the sections sound: every section has its one ``repoctx_search_rows`` row and
nothing else has one, the FTS5 tables hold a row per section, every symbol points at a
section and every part at a symbol, ``repoctx_search_docs`` is ``documents``' paths and
digests, and ``repoctx_search_vocab`` holds the counts the sections give. The FTS5
postings themselves are not recomputed (that is a rebuild's cost); the row checks find
what a lost or stray write leaves. An export without search tables has nothing to check.
Reads only.
"""

from __future__ import annotations

import sqlite3
from collections import Counter

from repoctx.retrieval.index import sql
from repoctx.retrieval.index.tables import (
    SectionRow,
    has_search_index,
    heading_words,
    vocab_words,
)

_NAMED = 5
"""Rows named one by one in a finding; the rest are counted."""


def check_search_tables(conn: sqlite3.Connection) -> list[str]:
    """Every disagreement of the search tables on ``conn`` with the sections (empty: sound)."""
    if not has_search_index(conn):
        return []
    problems = []
    for table, statement in sql.STRAY_ROWS:
        found = conn.execute(statement).fetchall()
        if found:
            named = ", ".join(str(row[0]) for row in found[:_NAMED])
            more = f" and {len(found) - _NAMED} more" if len(found) > _NAMED else ""
            problems.append(f"{table}: {len(found)} rows disagree with the sections"
                            f" ({named}{more})")
    (sections,) = conn.execute(sql.COUNT_SECTIONS).fetchone()
    for tables, statement in ((f"{sql.TEXT_TABLE} and {sql.AUX_TABLE}", sql.COUNT_TEXT_ROWS),
                              (sql.NAMES_TABLE, sql.COUNT_NAMES_ROWS)):
        (rows,) = conn.execute(statement).fetchone()
        if rows != sections:
            problems.append(f"{tables}: {rows} rows for {sections} sections")
    return problems + _vocab(conn)


def _vocab(conn: sqlite3.Connection) -> list[str]:
    counts: Counter[str] = Counter()
    for row in conn.execute(sql.SECTIONS):
        section = SectionRow(*row)
        counts.update(vocab_words(section.text, heading_words(section)))
    stored = dict(conn.execute(sql.VOCAB))
    wrong = sorted(term for term in counts.keys() | stored.keys()
                   if counts.get(term) != stored.get(term))
    if not wrong:
        return []
    named = ", ".join(f"{t} ({stored.get(t, 0)}, not {counts.get(t, 0)})" for t in wrong[:_NAMED])
    return [f"repoctx_search_vocab: {len(wrong)} terms miscounted: {named}"]
