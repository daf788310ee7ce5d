"""extract/symbol — the `Symbol` value every extractor returns.

Invariants: a `Symbol` is immutable and language-neutral; lines are 1-based and
inclusive; `refs` is sorted and holds each simple name at most once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

CLASS: Final = "class"
FUNCTION: Final = "function"
METHOD: Final = "method"
VARIABLE: Final = "variable"

KINDS: Final = frozenset({CLASS, FUNCTION, METHOD, VARIABLE})
"""Every value `Symbol.kind` may take."""

SIGNATURE_MAX: Final = 200
"""Longest `Symbol.signature` (and `Symbol.doc`), in characters, ellipsis included."""


@dataclass(frozen=True, slots=True)
class Symbol:
    """One declaration found in a source file.

    `fq_name` is the file's module joined to the qualified name in the language's
    own convention (`pkg.mod.Class.method`, `internal/store.Store.Get`,
    `crate::store::Store::get`, `src/ui/button.Button.render`; see each language's
    `Language.module` and `separator`); `name` is its last segment. `kind` is one of `KINDS`.
    `signature` is the declaration header on one line (`def get(self, key) -> Any`,
    `class Foo(Base)`, `LIMIT = 10`), whitespace-collapsed and at most
    `SIGNATURE_MAX` characters. `doc` is the first line of the docstring, or ''.
    `start_line` is the line of the declaring keyword (for a decorated definition
    the `def`/`class` line, not the decorator's); `end_line` is its last line.
    `refs` are the distinct simple names the declaration itself uses (see the
    extractor of its language for which uses count). `overload` is True for a typed
    stub (`@typing.overload`) standing before its implementation, not for the
    implementation itself. `test` is True when the extractor knows from the syntax
    that the declaration is a test (`#[test]`, `func TestX(t *testing.T)` in a
    `_test.go` file, `@Test`, `[Fact]`); naming conventions are applied on top of it
    by `is_test_symbol`. `targets` pairs a referenced simple name with the qualified
    name the file itself spells it as (`url_for` -> `flask.helpers.url_for` after
    `from flask.helpers import url_for`), sorted; a reference the file alone cannot
    qualify has none (Python only).
    """

    fq_name: str
    name: str
    kind: str
    signature: str
    doc: str
    start_line: int
    end_line: int
    refs: tuple[str, ...] = ()
    overload: bool = False
    test: bool = False
    targets: tuple[tuple[str, str], ...] = ()


def bounded(text: str, limit: int = SIGNATURE_MAX) -> str:
    """Collapse runs of whitespace to one space and cut `text` to `limit` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1] + "…"
