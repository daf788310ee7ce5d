"""retrieval/definition_slices — which whole definitions a file's slices carry.

Reads the store only (declarations). A slice is a whole definition, never a window of
matched words: the definition an agent edits arrives entire, with its signature. A
class too long to send whole (``LARGE_CLASS_LINES``) is sent as its header (from its
``class`` line to its first member: bases, docstring, class attributes) plus the members
that best match the task (their names said in the task first, then the most distinct
task words in their bodies), each member whole, so the signature context (the enclosing
class line) comes along.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .symbols import declarations

Span = tuple[int, int, str | None]

LARGE_CLASS_LINES = 120
"""A class longer than this is split into its header and its matching members."""
MAX_MEMBERS = 3
"""Most members of a split class sent with its header."""
NAME_BONUS = 4
_WORD = re.compile(r"[a-z_][a-z0-9_]{3,}")


def task_words(task: str) -> frozenset[str]:
    """Lowercased words and identifiers of four characters or more in ``task``."""
    return frozenset(_WORD.findall(task.lower()))


def member_spans(ws: object, path: str, fq: str, start: int, symbols: Iterable[str],
                 lines: list[str], words: frozenset[str]) -> list[Span] | None:
    """Header and best members of the class ``fq`` in ``path``; None when the class has
    no member declared in the file (then it goes whole or not at all)."""
    depth = fq.count(".") + 1
    members = []
    for name in symbols:
        if name.startswith(fq + ".") and name.count(".") == depth:
            decl = declarations(ws, name).get(path)  # type: ignore[arg-type]
            if decl is not None:
                members.append((with_decorators(lines, decl.start_line), decl.end_line,
                                name))
    if not members:
        return None
    members.sort()
    header: Span = (start, max(start, members[0][0] - 1), None)
    chosen = best_members(members, lines, words)
    return [header, *chosen]


def with_decorators(lines: list[str], first: int) -> int:
    """The first line of the definition declared at line ``first``: its decorators and
    the comments right above it belong to it."""
    line = first
    while line > 1 and lines[line - 2].strip().startswith(("@", "#")):
        line -= 1
    return line


def best_members(members: list[Span], lines: list[str], words: frozenset[str]) -> list[Span]:
    """Up to ``MAX_MEMBERS`` members matching the task, best first (none when none do)."""
    scored = []
    for start, end, name in members:
        simple = (name or "").rsplit(".", 1)[-1].lower()
        body = "".join(lines[start - 1:end]).lower()
        hits = sum(1 for w in words if w in body)
        score = hits + (NAME_BONUS if simple in words else 0)
        if score:
            scored.append((-score, start, (start, end, name)))
    scored.sort()
    return [span for *_, span in scored[:MAX_MEMBERS]]
