from repoctx.contextpull.sections.definitions import SymbolSpan, definitions_from_spans, spans_of
from repoctx.extract import extract

SOURCE = '''import os

LIMIT = 3


@decorator
class Outer:
    """Doc."""

    @property
    def size(self):
        return 1

    class Inner:
        def deep(self):
            pass


def helper():
    return 2
'''


def test_nesting_by_qualname_and_decorators() -> None:
    spans = spans_of(extract("pkg/mod.py", SOURCE))
    (outer, helper) = definitions_from_spans("pkg/mod.py", SOURCE, spans)
    assert (outer.name, outer.kind, outer.start_line, outer.end_line) == ("Outer", "class", 6, 16)
    assert [c.name for c in outer.children] == ["size", "Inner"]
    assert outer.children[0].start_line == 10  # the @property line
    assert [c.name for c in outer.children[1].children] == ["deep"]
    assert (helper.name, helper.kind, helper.start_line) == ("helper", "function", 19)


def test_other_module_and_variables_are_not_definitions() -> None:
    spans = [SymbolSpan("pkg.mod.X", "variable", 1, 1), SymbolSpan("other.f", "function", 2, 3),
             SymbolSpan("pkg.mod.f", "function", 2, 3)]  # fmt: skip
    (only,) = definitions_from_spans("pkg/mod.py", "X = 1\ndef f():\n    pass\n", spans)
    assert only.name == "f" and only.children == ()


def test_top_level_init_module() -> None:
    spans = [SymbolSpan("f", "function", 1, 2)]
    assert definitions_from_spans("__init__.py", "def f():\n    pass\n", spans)[0].name == "f"
