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
from repoctx.retrieval.bundle.literals import QUOTED, literal_definitions
from repoctx.retrieval.bundle.rank import Candidate
from repoctx.retrieval.query import STOPWORDS, TASK_WORDS, normalise_name
from repoctx.retrieval.search.state import search_state
from repoctx.retrieval.search.task_text import index_stats
from repoctx.retrieval.search.task_text import task_names as rare_task_names
from repoctx.retrieval.symbols import reverse_members, where
from repoctx.retrieval.tuning import TUNING
from repoctx.retrieval.workspace import Workspace

DEFINITION, DEPENDENT, TEST = "definition", "dependent", "test"
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_CODE_LIKE = re.compile(r"[_.]|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]")
_SKIPPED = STOPWORDS | TASK_WORDS


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
        return rare_task_names(task, index_stats(state, ws.tuning))
    return task_names(task, ws.tuning.text.max_names)


def task_names(task: str, most: int = TUNING.text.max_names) -> list[str]:
    """At most ``most`` identifier-like words of ``task`` worth looking up, code-looking
    ones first."""
    words = dict.fromkeys(w.strip(".") for w in _NAME.findall(task))
    names = [w for w in words if len(w) >= 3 and w.lower() not in _SKIPPED]
    names.sort(key=lambda w: not _CODE_LIKE.search(w))  # stable: keeps task order
    return names[:most]


def definitions(ws: Workspace, name: str) -> list[Candidate]:
    """Where ``name`` (simple or dotted) is defined, as candidates."""
    if "." in name:
        path = where(ws, name)
        if path is not None:
            return [Candidate(path, name, f"{DEFINITION}:{name}")]
    simple = name.rsplit(".", 1)[-1]
    state = search_state(ws.export)
    name_hits = ws.tuning.bundle.name_hits
    if state.indexed:  # the search index knows every declaration by normalised name
        rows = state.conn.execute(_BY_NAME, (normalise_name(simple), name_hits * 4))
        return [Candidate(path, fq, f"{DEFINITION}:{fq}") for fq, path in rows
                if fq == name or fq.endswith("." + name)]
    out: list[Candidate] = []
    hits = ws.reader().search(simple, limit=name_hits)["hits"]
    for path in dict.fromkeys(hit["doc"] for hit in hits):
        node = ws.node(path)
        for fq in node.symbols if node is not None else ():
            if fq == name or fq.endswith("." + name):
                out.append(Candidate(path, fq, f"{DEFINITION}:{fq}"))
    return out


_BY_NAME = ("SELECT DISTINCT fq, path FROM repoctx_search_symbols WHERE norm = ?"
            " ORDER BY path NOT LIKE '%test%', length(fq), fq LIMIT ?")


def reverse(ws: Workspace, name: str, relation: str, limit: int | None = None
            ) -> list[Candidate]:
    """Up to ``limit`` (``expansions_per_name`` by default) dependents or tests of a
    simple name, as candidates."""
    if limit is None:
        limit = ws.tuning.bundle.expansions_per_name
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
    Order: the first ``leading_hits`` of ``base`` (search's first file is the likeliest
    edit: a named definition's file ahead of it, even one search ranks near the top, made
    the first entry right less often on the sympy and sphinx splits), the definitions
    holding text the task quotes (``literals``), the first ``leading_definitions`` named
    definitions, the rest of the first half of
    ``base``, the other definitions, the rest of ``base``, tests, dependents.
    """
    defs: list[Candidate] = []
    subjects: dict[str, None] = {}
    names = names_of(ws, task)
    knobs = ws.tuning.bundle
    for name in names:
        found = _best(definitions(ws, name), names, knobs.expansions_per_name)
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
    hits = base[:min(knobs.leading_hits, half)]
    lead = defs[:knobs.leading_definitions]
    quoted = literal_definitions(ws, task)
    return (hits + quoted + lead + base[len(hits):half] + defs[len(lead):] + base[half:]
            + tests + deps)


def _best(found: list[Candidate], names: list[str], most: int) -> list[Candidate]:
    """At most ``most`` definitions, those whose path names more of the task first."""
    words = {n.rsplit(".", 1)[-1] for n in names}

    def mentions(c: Candidate) -> int:
        return -len(words & set((c.symbol or "").split(".")))

    return sorted(found, key=mentions)[:most]


def gather(candidates: list[Candidate], top: int) -> list[Target]:
    """One target per file, in first-seen order, at most ``top``; in a file, the
    definitions holding quoted text come before its other symbols (the likeliest edit
    of the file: its slices carry them first)."""
    files = list(dict.fromkeys(c.path for c in candidates))[:top]
    grouped: dict[str, tuple[dict[str, None], dict[tuple[int, int], None], dict[str, None]]] = {
        path: ({}, {}, {}) for path in files}
    quoted_first = sorted(candidates, key=lambda c: not c.reason.startswith(QUOTED + ":"))
    for c in quoted_first:  # a stable sort: each group keeps its order
        if c.path not in grouped:
            continue
        symbols, spans, reasons = grouped[c.path]
        if c.symbol:
            symbols[c.symbol] = None
        elif c.lines:
            spans[c.lines] = None
    for c in candidates:  # reasons in the order the candidates came
        if c.path in grouped:
            grouped[c.path][2][c.reason] = None
    return [Target(path, tuple(s), tuple(sp), tuple(r))
            for path, (s, sp, r) in grouped.items()]
