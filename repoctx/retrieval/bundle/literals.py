"""retrieval/bundle/literals — the definitions holding the text a task quotes.

An issue that quotes an error message or a log line points at the code that prints it more
surely than any of its words do: a plain grep for the message finds the function raising
it. Each quoted run of words (``task_text.quoted_phrases``) is matched as a phrase in the
search index's Porter table (library code only: tests, vendored code and release notes
sit in the ``_aux`` table), confirmed literally in the section's text (the words in order,
anything but letters and digits between them, so a message split over concatenated string
literals still counts) inside a string literal opened on its line (a docstring's or a
comment's prose saying the same words is not the code printing them), and mapped to the
innermost function, method or class whose lines hold it (a module-level line stands for
itself). A run that matches nowhere is tried
again without its last word, then without its first (a value the message was formatted
with, written as a plain word); one matching more than ``literal_sections`` code sections
is not specific and leads nowhere. Reads only.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from repoctx.extract import CLASS, FUNCTION, METHOD
from repoctx.retrieval.bundle.rank import Candidate
from repoctx.retrieval.search.state import search_state, sqlite_errors
from repoctx.retrieval.search.task_text import quoted_phrases
from repoctx.retrieval.workspace import Workspace

QUOTED = "quoted"
_DEFINITION_KINDS = (FUNCTION, METHOD, CLASS)
_SECTIONS = (
    "SELECT s.id, d.path, s.text, x.start_line FROM repoctx_search_text t"
    " JOIN sections s ON s.rowid = t.rowid JOIN documents d ON d.doc_id = s.doc_id"
    " LEFT JOIN repoctx_sections x ON x.id = s.id"
    " WHERE repoctx_search_text MATCH ? AND d.kind = 'code' LIMIT ?")
_HOLDERS = (
    "SELECT fq, kind FROM repoctx_search_symbols WHERE path = ? AND start_line <= ?"
    " AND end_line >= ? ORDER BY end_line - start_line, fq")
REASON_CHARS = 60
"""A reason quotes at most this much of the phrase that was found."""


@dataclass(frozen=True, slots=True)
class Holder:
    """Where a quoted phrase stands: the file, the line, the definition holding it."""

    path: str
    line: int
    symbol: str | None


def literal_definitions(ws: Workspace, task: str) -> list[Candidate]:
    """The definitions holding the runs of words ``task`` quotes, as candidates, in the
    order the task quotes them (each definition once)."""
    state = search_state(ws.export)
    if not state.indexed:
        return []
    out: dict[tuple[str, str | None, int], Candidate] = {}
    most = ws.tuning.bundle.literal_sections
    with sqlite_errors("looking up quoted text"):
        for phrase in quoted_phrases(task, ws.tuning.text):
            found, words = _holders_of(state.conn, phrase.split(), most,
                                       ws.tuning.text.min_phrase_words)
            reason = f'{QUOTED}:"{" ".join(words)[:REASON_CHARS]}"'
            for holder in found:
                key = (holder.path, holder.symbol, 0 if holder.symbol else holder.line)
                lines = None if holder.symbol else (holder.line, holder.line)
                out.setdefault(key, Candidate(holder.path, holder.symbol, reason, lines))
    return list(out.values())


def _holders_of(conn: sqlite3.Connection, words: list[str], most: int,
                fewest: int) -> tuple[list[Holder], list[str]]:
    """The holders of ``words`` (or of it trimmed by one word at an end), and the words
    that were found."""
    tries = [words]
    if len(words) > fewest:
        tries += [words[:-1], words[1:]]
    for phrase in tries:
        found = holders(conn, phrase, most)
        if found:
            return found, phrase
    return [], words


def holders(conn: sqlite3.Connection, words: list[str], most: int) -> list[Holder]:
    """Where ``words`` stand, in that order, in the library's code sections: empty when
    nowhere, or when in more than ``most`` sections (not specific)."""
    match = 'body : "' + " ".join(words) + '"'  # letters-only words: nothing to escape
    rows = conn.execute(_SECTIONS, (match, most + 1)).fetchall()
    if len(rows) > most:
        return []
    pattern = re.compile(r"\b" + r"[\W_]+".join(map(re.escape, words)) + r"\b", re.I)
    out = []
    for _, path, text, start in rows:
        hit = next((h for h in pattern.finditer(text) if in_string(text, h.start())), None)
        if hit is None or start is None:
            continue  # stemmed, prose (a comment, a docstring) or without lines: not literal
        line = start + text.count("\n", 0, hit.start())
        out.append(Holder(path, line, _innermost(conn, path, line)))
    return out


def in_string(text: str, at: int) -> bool:
    """True when offset ``at`` of ``text`` reads as inside a string literal written on its
    line (a quote before it there, not in a comment): a message the code prints, not a
    docstring's or a comment's prose that happens to say the same words."""
    before = text[text.rfind("\n", 0, at) + 1:at]
    return ('"' in before or "'" in before) and not before.lstrip().startswith(("#", "//"))


def _innermost(conn: sqlite3.Connection, path: str, line: int) -> str | None:
    """The innermost function, method or class of ``path`` holding ``line`` (else the
    innermost definition of any kind, else None: module-level code)."""
    found = conn.execute(_HOLDERS, (path, line, line)).fetchall()
    return next((fq for fq, kind in found if kind in _DEFINITION_KINDS),
                found[0][0] if found else None)
