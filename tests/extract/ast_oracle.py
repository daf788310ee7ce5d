"""tests/extract/ast_oracle — Python's `ast` as the reference for Python definitions.

A helper, not a test module: `test_python.py` and `bench/extract_quality.py` load it
by file path. A definition is `(fq_name, kind, start_line)`; the reference holds one
per ClassDef / FunctionDef / AsyncFunctionDef, the qualified name joining the
enclosing class and function names with `.`, `kind` being `method` when the nearest
enclosing definition is a class. Multisets (`Counter`) keep repeated definitions.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from repoctx.extract import extract, module_name

Definition = tuple[str, str, int]

_DEFS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def reference_definitions(path: str, source: str) -> Counter[Definition] | None:
    """The definitions `ast` finds in `source`, or None when `ast` cannot parse it."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    module = module_name(path)
    prefix = f"{module}." if module else ""
    walked = _walk(tree, "", False)
    return Counter((prefix + qualname, kind, line) for qualname, kind, line in walked)


def _walk(node: ast.AST, qualname: str, in_class: bool) -> Iterator[Definition]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _DEFS):
            name = f"{qualname}.{child.name}" if qualname else child.name
            is_class = isinstance(child, ast.ClassDef)
            kind = "class" if is_class else ("method" if in_class else "function")
            yield name, kind, child.lineno
            yield from _walk(child, name, is_class)
        else:
            yield from _walk(child, qualname, in_class)


def extracted_definitions(path: str, source: str) -> Counter[Definition]:
    """The class / function / method definitions the extractor finds in `source`."""
    return Counter(
        (symbol.fq_name, symbol.kind, symbol.start_line)
        for symbol in extract(path, source)
        if symbol.kind != "variable"
    )


@dataclass
class Score:
    """Running precision / recall of extracted against reference definitions."""

    files: int = 0
    matched: int = 0
    extracted: int = 0
    expected: int = 0
    missing: list[tuple[str, Definition]] = field(default_factory=list)
    spurious: list[tuple[str, Definition]] = field(default_factory=list)

    @property
    def precision(self) -> float:
        """Share of extracted definitions that `ast` also has."""
        return self.matched / self.extracted if self.extracted else 1.0

    @property
    def recall(self) -> float:
        """Share of `ast`'s definitions that were extracted."""
        return self.matched / self.expected if self.expected else 1.0

    def add(self, path: str, expected: Counter[Definition], found: Counter[Definition]) -> None:
        """Count one file's definitions and remember its mismatches."""
        self.files += 1
        self.matched += sum((expected & found).values())
        self.extracted += sum(found.values())
        self.expected += sum(expected.values())
        self.missing.extend((path, item) for item in (expected - found).elements())
        self.spurious.extend((path, item) for item in (found - expected).elements())


def score_sources(sources: Iterable[tuple[str, str]]) -> Score:
    """Score the extractor over `(relative path, text)` pairs `ast` can parse."""
    score = Score()
    for path, text in sources:
        expected = reference_definitions(path, text)
        if expected is not None:
            score.add(path, expected, extracted_definitions(path, text))
    return score
