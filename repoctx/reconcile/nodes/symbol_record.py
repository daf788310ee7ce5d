"""reconcile/nodes/symbol_record — the symbol node at ``repo/{id}/symbol/{fqName}``.

One field, ``decl``: an observed-remove map from each declaring file's path to what
that file declares (kind, signature, doc, line span, outbound references, whether it
is a test, the digest of its own text, and the references the file qualifies:
``targets``). The keys are the declaring files, add-wins: a ``.py`` and its ``.pyi`` both
declare ``pkg.x.Foo`` and the symbol lives until the last file stops declaring it, when the
map is empty and the record a tombstone. The symbol tree wraps every value in a schema
envelope (family 1, version 1), applied by the trees layer.

A declaration is stored as a tuple (``Declaration.wire``) that grows at its end: a
reader takes the elements it knows and defaults the ones an older writer did not
write. ``decl_wire.WIRE_VERSION`` counts its shapes; a store holding an older shape is
re-projected once by the next pass (the file node marker ``file_node.DECLS``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from repoctx.crdt import or_map, record
from repoctx.crdt.record import Record
from repoctx.extract import Symbol, definition_digests, is_test_symbol

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
    digest: str = ""
    """``extract.definition_digests`` of the definition's own text; "" when written by
    a version before digests."""
    targets: tuple[tuple[str, str], ...] = ()
    """``(simple name, qualified spelling)`` of the references the file qualifies."""

    def wire(self) -> tuple:
        """The value stored in the map."""
        return (self.kind, self.signature, self.doc, self.start_line, self.end_line,
                tuple(self.refs), self.is_test, self.digest,
                tuple(tuple(pair) for pair in self.targets))


def declarations_of(path: str, symbols: Iterable[Symbol], text: str,
                    ) -> dict[str, Declaration]:
    """One declaration per fully-qualified name of the extraction ``symbols`` of the file
    ``text``, with every reference and the digest of its own text.

    ``@overload`` stubs resolve to their implementation: its signature, docstring and
    span are the declaration's. Other repeated ``def``s (if/else twins, or stubs with no
    implementation, as in a ``.pyi``) fold into the first, spanning to the last.
    """
    grouped: dict[str, list[Symbol]] = {}
    for sym in symbols:
        grouped.setdefault(sym.fq_name, []).append(sym)
    out = {}
    for fq, group in grouped.items():
        implemented = [s for s in group if not s.overload]
        group_span = implemented or group
        first = min(group_span, key=lambda s: s.start_line)
        refs = tuple(sorted({r for s in group for r in s.refs}))
        targets = tuple(sorted({t for s in group for t in s.targets}))
        out[fq] = Declaration(first.kind, first.signature, first.doc, first.start_line,
                              max(s.end_line for s in group_span), refs,
                              any(is_test_symbol(s, path) for s in group), targets=targets)
    found = definition_digests(text, {fq: (d.start_line, d.end_line) for fq, d in out.items()})
    return {fq: replace(d, digest=found[fq]) for fq, d in out.items()}


def declarations(rec: Record | None) -> dict[str, Declaration]:
    """Declaring file -> declaration (empty for a missing or retired symbol)."""
    state = record.field_state(rec, DECL, or_map)
    return {path: _declaration(value) for path, value in or_map.value(state).items()}


def declaration_at(rec: Record | None, path: str) -> Declaration | None:
    """``declarations(rec).get(path)``, decoding only what ``path`` declares."""
    raw = None if rec is None else rec.fields.get(DECL)
    value = None if raw is None else or_map.value_of(raw, path)
    return None if value is None else _declaration(value)


def _declaration(value: tuple) -> Declaration:
    """A declaration from its stored value (``Declaration.wire``); an older writer's
    shorter tuple has no digest and no targets."""
    digest = str(value[7]) if len(value) > 7 else ""
    targets = tuple((str(n), str(t)) for n, t in value[8]) if len(value) > 8 else ()
    return Declaration(*value[:5], tuple(value[5]), bool(value[6]), digest, targets)


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
