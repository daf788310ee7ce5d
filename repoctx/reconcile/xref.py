"""reconcile/xref — the reverse edges a symbol contributes, and the diff to apply.

A symbol contributes a ``dependents`` edge to every simple name its declarations
reference. A test symbol also contributes ``tests`` edges: to every name it
references, and to the subject its name follows (``TestFoo``, ``FooTest``,
``FooTests`` cover ``Foo``; ``test_foo_bar`` covers ``foo_bar``, the snake form that
``FooBar`` and ``foo_bar`` share — readers look a name up under both). A reference its
file qualifies (``Declaration.targets``) also contributes an edge in the name's
``to:<spelling>`` field, which query time resolves to a definition. Pure.
"""

from __future__ import annotations

import re

from repoctx.extract import receiver_chain, simple_name
from repoctx.reconcile.nodes.symbol_record import Declaration
from repoctx.reconcile.nodes.xref_record import DEPENDENTS, TESTS, target_field

Edge = tuple[str, str]  # (relation, referenced name)

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def snake(name: str) -> str:
    """``FooBar`` -> ``foo_bar`` (the form ``test_foo_bar`` names)."""
    return _CAMEL.sub("_", name).lower()


def test_subjects(name: str, kind: str) -> set[str]:
    """The names a test's own name says it covers."""
    if kind == "class":
        # TestFoo / Test_foo / FooTest / FooTests; a bare Test or Tests names no subject.
        match = re.fullmatch(r"Test(?:_(\w+)|([A-Z0-9]\w*))|(\w+?)Tests?", name)
        subject = match and next((g for g in match.groups() if g), None)
        return {subject} if subject else set()
    return {name[len("test_"):]} if name.startswith("test_") and len(name) > 5 else set()


def marked_test_subjects(name: str) -> set[str]:
    """The subjects of a function its extractor marked a test by syntax (Go's
    ``TestStore_Get`` / ``TestParse`` cover ``Store_Get``, ``Store``, ``Get`` / ``Parse``)."""
    match = re.fullmatch(r"Test([A-Z0-9]\w*)", name)
    if match is None:
        return set()
    subject = match.group(1)
    return {subject, *(part for part in subject.split("_") if part)}


def edges(fq_name: str, decls: dict[str, Declaration]) -> set[Edge]:
    """Every reverse edge the symbol ``fq_name`` contributes, given its declarations."""
    out: set[Edge] = set()
    short = simple_name(fq_name)
    for decl in decls.values():
        out.update((DEPENDENTS, name) for name in decl.refs)
        out.update((target_field(spelled), name) for name, spelled in decl.targets
                   if not receiver_chain(spelled))  # resolved when asked, not an edge
        if decl.is_test:
            out.update((TESTS, name) for name in decl.refs)
            out.update((TESTS, subject) for subject in test_subjects(short, decl.kind))
            if decl.kind == "function":
                out.update((TESTS, subject) for subject in marked_test_subjects(short))
    return out
