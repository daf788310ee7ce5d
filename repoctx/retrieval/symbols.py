"""retrieval/symbols — symbol lookups the read tools share (store only, bounded).

Where a symbol is declared, what a file declares, and who depends on or tests a
simple name (the reverse cross-reference tree, looked up under the name and, for
tests, under its snake form too).
"""

from __future__ import annotations

from repoctx.extract import simple_name
from repoctx.reconcile import Declaration, snake
from repoctx.reconcile.nodes import symbol_record, xref_record
from repoctx.retrieval.workspace import Workspace
from repoctx.trees import BY_FAMILY

LOOKUP_LIMIT = 200
"""Most edges one reverse lookup returns (a popular name can have thousands)."""
SUGGESTIONS = 3
"""Most "did you mean" names an unknown symbol gets."""
DECLARATIONS_KEPT = 200_000
"""Symbols whose decoded declarations a workspace keeps; past it they start over."""
_SYMBOL_TREE = BY_FAMILY["symbol"].name
_NAMED = "SELECT DISTINCT fq, path FROM repoctx_search_symbols WHERE name = ? ORDER BY fq LIMIT ?"
_NEAR = ("SELECT fq FROM repoctx_search_symbols WHERE name = ? OR fq LIKE ? ESCAPE '\\'"
         " LIMIT 2000")


def declarations(ws: Workspace, fq_name: str) -> dict[str, Declaration]:
    """Declaring path -> declaration of one symbol, decoded once per generation of the
    symbol tree and kept for every later call (a bundle decodes the declarations of
    each definition of its first files, ~250 per call on Django, mostly the same files
    from one task to the next). The mapping is shared: never change it."""
    return ws.kept("symbol-declarations", _SYMBOL_TREE, fq_name, lambda: ws.view_of(
        ws.store.key("symbol", fq_name), symbol_record.declarations), DECLARATIONS_KEPT,
        dict[str, dict[str, Declaration]])


def declared_in(ws: Workspace, path: str, fq_names: tuple[str, ...],
                ) -> list[tuple[str, Declaration]]:
    """``(fq, declaration)`` of what ``path`` declares, in line order."""
    found = []
    for fq in fq_names:
        decl = declarations(ws, fq).get(path)
        if decl is not None:
            found.append((fq, decl))
    return sorted(found, key=lambda item: (item[1].start_line, item[0]))


def where(ws: Workspace, fq_name: str) -> str | None:
    """The path a reader should open for a symbol (its primary declaration)."""
    first = symbol_record.primary(declarations(ws, fq_name))
    return None if first is None else first[0]


def reverse_members(ws: Workspace, name: str, relation: str) -> list[str]:
    """Symbols on one side of the reverse index of a simple name, sorted (tests are looked
    up under the name and its snake form, as ``test_foo_bar`` records them)."""
    names = [name, snake(name)] if relation == xref_record.TESTS else [name]
    members: set[str] = set()
    for key_name in dict.fromkeys(names):
        members |= xref_record.members(ws.get(ws.store.key("xref", key_name)), relation)
    return sorted(members)


def reverse(ws: Workspace, name: str, relation: str) -> list[dict[str, str | None]]:
    """``[{symbol, path}]`` on one side of the reverse index of a simple name."""
    return [{"symbol": fq, "path": where(ws, fq)}
            for fq in reverse_members(ws, name, relation)[:LOOKUP_LIMIT]]


def reverse_all(ws: Workspace, names: set[str], relation: str) -> list[dict[str, str | None]]:
    """``reverse`` over several names, deduplicated by symbol, in symbol order."""
    seen: dict[str, dict[str, str | None]] = {}
    for name in sorted(names):
        for edge in reverse(ws, name, relation):
            seen.setdefault(str(edge["symbol"]), edge)
    return [seen[k] for k in sorted(seen)]


def reverse_names(ws: Workspace, names: set[str], relation: str) -> list[str]:
    """Every symbol on one side of the reverse index of any of ``names``, sorted."""
    members: set[str] = set()
    for name in names:
        members.update(reverse_members(ws, name, relation))
    return sorted(members)


def named(ws: Workspace, name: str, limit: int) -> list[tuple[str, str]]:
    """``(fq, declaring path)`` of at most ``limit`` definitions whose simple name is
    ``name`` (none when the export has no search tables)."""
    from repoctx.retrieval.search.state import search_state, sqlite_errors  # here: the
    # search tables' modules are ~60 ms of a fresh process that reads only the store

    state = search_state(ws.export)
    if not state.indexed:
        return []
    with sqlite_errors("reading symbol names"):
        return [(fq, path) for fq, path in state.conn.execute(_NAMED, (name, limit))]


def suggestions(ws: Workspace, fq_name: str) -> list[str]:
    """Declared names nearest to an undeclared ``fq_name``: those with its simple name
    first, then those under its parent, most alike first (none when the export has no
    search tables)."""
    parent = fq_name.rsplit(".", 1)[0]
    like = parent.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + ".%"
    from repoctx.retrieval.search.state import search_state, sqlite_errors

    state = search_state(ws.export)
    if not state.indexed:
        return []
    with sqlite_errors("reading symbol names"):
        near = {row[0] for row in state.conn.execute(_NEAR, (simple_name(fq_name), like))}
    from rapidfuzz import fuzz  # only an unknown name pays for the import

    short = simple_name(fq_name)
    ranked = sorted(near, key=lambda n: (simple_name(n) != short, -fuzz.ratio(fq_name, n), n))
    return ranked[:SUGGESTIONS]
