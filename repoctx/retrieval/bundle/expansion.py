"""retrieval/bundle/expansion — cross-reference expansion of ranked candidates, grouped per file.

The names a task mentions (``task_text.task_names``: code-looking names rare in the
index; a dunder or common name only when qualified) are looked up as definitions: a
dotted name directly in the symbol tree, a simple one among the symbols of the files a
lexical search for it finds. For each definition found, its
dependents and covering tests come from the reverse cross-reference tree (tests under
the name and its snake form), a bounded number per name. The expanded list is
grouped into one ``Target`` per file, in first-seen order. Reads only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from repoctx.reconcile.nodes import xref_record
from repoctx.retrieval.bundle.rank import Candidate
from repoctx.retrieval.query import normalise_name
from repoctx.retrieval.search.state import search_state
from repoctx.retrieval.search.task_text import MAX_NAMES, index_stats
from repoctx.retrieval.search.task_text import task_names as rare_task_names
from repoctx.retrieval.symbols import reverse_members, where
from repoctx.retrieval.workspace import Workspace

DEFINITION, DEPENDENT, TEST = "definition", "dependent", "test"
PER_NAME = 4
"""Most definitions per task name, and most dependents and tests per definition."""
_NAME_HITS = 5
LEADING_DEFINITIONS = 2
"""Definitions placed before the search's first half; the others follow it. A long task
names many things: its first names lead, but eight names' definitions ahead of every
search hit pushed the files the whole text points at out of the plan (SWE-bench
Django split, context All@13k 75% → 80% on three series)."""
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_CODE_LIKE = re.compile(r"[_.]|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]")
_STOP_TEXT = """
a about after all also an and any are as at be been but by can do does for from has
have how if in into is it its not of on or our out should so some than that the their
then there these this those to was way we what when where which while who why will
with without would you your fix bug code file files function method class test tests
"""
_STOPWORDS = frozenset(_STOP_TEXT.split())


@dataclass(frozen=True, slots=True)
class Target:
    """One file of a bundle: the symbols and line spans that made it relevant, and why."""

    path: str
    symbols: tuple[str, ...] = ()
    spans: tuple[tuple[int, int], ...] = ()
    reasons: tuple[str, ...] = ()


def names_of(ws: Workspace, task: str) -> list[str]:
    """The names of ``task`` to expand: with a search index, those rare in it
    (``task_text.task_names``); without one, the identifier-like words (``task_names``)."""
    state = search_state(ws.export)
    if state.indexed:
        return rare_task_names(task, index_stats(state))
    return task_names(task)


def task_names(task: str) -> list[str]:
    """Identifier-like words of ``task`` worth looking up, code-looking ones first."""
    words = dict.fromkeys(w.strip(".") for w in _NAME.findall(task))
    names = [w for w in words if len(w) >= 3 and w.lower() not in _STOPWORDS]
    names.sort(key=lambda w: not _CODE_LIKE.search(w))  # stable: keeps task order
    return names[:MAX_NAMES]


def definitions(ws: Workspace, name: str) -> list[Candidate]:
    """Where ``name`` (simple or dotted) is defined, as candidates."""
    if "." in name:
        path = where(ws, name)
        if path is not None:
            return [Candidate(path, name, f"{DEFINITION}:{name}")]
    simple = name.rsplit(".", 1)[-1]
    state = search_state(ws.export)
    if state.indexed:  # the search index knows every declaration by normalised name
        rows = state.conn.execute(_BY_NAME, (normalise_name(simple), _NAME_HITS * 4))
        return [Candidate(path, fq, f"{DEFINITION}:{fq}") for fq, path in rows
                if fq == name or fq.endswith("." + name)]
    out: list[Candidate] = []
    hits = ws.reader().search(simple, limit=_NAME_HITS)["hits"]
    for path in dict.fromkeys(hit["doc"] for hit in hits):
        node = ws.node(path)
        for fq in node.symbols if node is not None else ():
            if fq == name or fq.endswith("." + name):
                out.append(Candidate(path, fq, f"{DEFINITION}:{fq}"))
    return out


_BY_NAME = ("SELECT DISTINCT fq, path FROM repoctx_search_symbols WHERE norm = ?"
            " ORDER BY path NOT LIKE '%test%', length(fq), fq LIMIT ?")


def reverse(ws: Workspace, name: str, relation: str, limit: int = PER_NAME) -> list[Candidate]:
    """Up to ``limit`` dependents or tests of a simple name, as candidates."""
    label = TEST if relation == xref_record.TESTS else DEPENDENT
    out = []
    for fq in reverse_members(ws, name, relation):
        path = where(ws, fq)
        if path is not None:
            out.append(Candidate(path, fq, f"{label}:{name}"))
        if len(out) >= limit:
            break
    return out


def expand(ws: Workspace, task: str, base: list[Candidate], top: int) -> list[Candidate]:
    """``base`` with the task's named definitions, their tests and dependents woven in.

    A dotted name's owning class (``Cart`` of ``Cart.total``) is a subject too.
    Order: the first ``LEADING_DEFINITIONS`` definitions, the first half of ``base``, the
    other definitions, the rest of ``base``, tests, dependents.
    """
    defs: list[Candidate] = []
    subjects: dict[str, None] = {}
    names = names_of(ws, task)
    for name in names:
        found = _best(definitions(ws, name), names)
        defs.extend(found)
        subjects.update((c.symbol.rsplit(".", 1)[-1], None) for c in found if c.symbol)
        owner = name.split(".")[-2] if "." in name else ""
        if found and owner[:1].isupper():  # ``Cart.total``: tests of Cart cover it too
            subjects[owner] = None
    tests: list[Candidate] = []
    deps: list[Candidate] = []
    for simple in subjects:
        tests.extend(reverse(ws, simple, xref_record.TESTS))
        deps.extend(reverse(ws, simple, xref_record.DEPENDENTS))
    half = (top + 1) // 2
    lead = defs[:LEADING_DEFINITIONS]
    return lead + base[:half] + defs[len(lead):] + base[half:] + tests + deps


def _best(found: list[Candidate], names: list[str]) -> list[Candidate]:
    """At most ``PER_NAME`` definitions, those whose path names more of the task first."""
    words = {n.rsplit(".", 1)[-1] for n in names}

    def mentions(c: Candidate) -> int:
        return -len(words & set((c.symbol or "").split(".")))

    return sorted(found, key=mentions)[:PER_NAME]


def gather(candidates: list[Candidate], top: int) -> list[Target]:
    """One target per file, in first-seen order, at most ``top``."""
    grouped: dict[str, tuple[dict[str, None], dict[tuple[int, int], None], dict[str, None]]] = {}
    for c in candidates:
        if c.path not in grouped:
            if len(grouped) >= top:
                continue
            grouped[c.path] = ({}, {}, {})
        symbols, spans, reasons = grouped[c.path]
        if c.symbol:
            symbols[c.symbol] = None
        elif c.lines:
            spans[c.lines] = None
        reasons[c.reason] = None
    return [Target(path, tuple(s), tuple(sp), tuple(r))
            for path, (s, sp, r) in grouped.items()]
