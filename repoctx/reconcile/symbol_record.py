"""reconcile/symbol_record — the symbol node at ``repo/{id}/symbol/{fqName}``.

One field, ``decl``: an observed-remove map from each declaring file's path to what
that file declares (kind, signature, doc, line span, outbound references, whether it
is a test). The keys are the declaring files, add-wins: a ``.py`` and its ``.pyi``
both declare ``pkg.x.Foo`` and the symbol lives until the last file stops declaring
it, when the map is empty and the record a tombstone. The symbol tree wraps every
value in a schema envelope (family 1, version 1), applied by the trees layer.
"""

from __future__ import annotations

from dataclasses import dataclass

from repoctx.crdt import or_map, record
from repoctx.crdt.record import Record

DECL = "decl"


@dataclass(frozen=True, slots=True)
class Declaration:
    """What one file declares about a symbol."""

    kind: str
    signature: str
    doc: str
    start_line: int
    end_line: int
    refs: tuple[str, ...]
    is_test: bool

    def wire(self) -> tuple:
        """The value stored in the map."""
        return (self.kind, self.signature, self.doc, self.start_line, self.end_line,
                tuple(self.refs), self.is_test)


def declarations(rec: Record | None) -> dict[str, Declaration]:
    """Declaring file -> declaration (empty for a missing or retired symbol)."""
    state = record.field_state(rec, DECL, or_map)
    return {path: Declaration(*value[:5], tuple(value[5]), bool(value[6]))
            for path, value in or_map.value(state).items()}


def primary(decls: dict[str, Declaration]) -> tuple[str, Declaration] | None:
    """The declaration a reader sees first: a source file before a stub, then path order."""
    if not decls:
        return None
    path = min(decls, key=lambda p: (p.endswith(".pyi"), p))
    return path, decls[path]


def declare_delta(current: Record | None, path: str, decl: Declaration, tick: int,
                  replica: str) -> Record | None:
    """Delta recording that ``path`` declares ``decl`` (None when already recorded)."""
    state = record.field_state(current, DECL, or_map)
    if or_map.value(state).get(path) == decl.wire():
        return None
    return record.write({DECL: or_map.put(state, path, decl.wire(), tick, replica)}, tick)


def undeclare_delta(current: Record | None, path: str, tick: int) -> Record | None:
    """Delta recording that ``path`` no longer declares the symbol (None if it did not)."""
    state = record.field_state(current, DECL, or_map)
    if path not in state.entries:
        return None
    return record.write({DECL: or_map.remove(state, path)}, tick)
