from repoctx.extract import CLASS, FUNCTION, METHOD
from repoctx.extract.grammar import load
from repoctx.extract.treewalk import Rule, Spec, owned_refs, owned_targets, symbols

SOURCE = '''# Holds things.
class Box:
    # Not attached: a Python class body's first comment belongs to the class node.
    def put(self, item):
        check(item)
        def inner():
            helper()


# Free
# standing.
def free():
    pass
'''

SPEC = Spec(
    grammar=lambda path: load("tree_sitter_python"),
    rules={"class_definition": Rule(CLASS), "function_definition": Rule(FUNCTION)},
    refs="(call function: (identifier) @ref)",
    module=lambda path, source, root: path.removesuffix(".py"),
)


def test_definitions_are_nested_qualified_and_spanned() -> None:
    found = {s.fq_name: s for s in symbols(SPEC, "m.py", SOURCE)}
    assert list(found) == ["m.Box", "m.Box.put", "m.Box.put.inner", "m.free"]
    box, put, inner, free = found.values()
    assert (box.kind, put.kind, inner.kind, free.kind) == (CLASS, METHOD, FUNCTION, FUNCTION)
    assert (box.start_line, box.end_line, put.start_line, put.end_line) == (2, 7, 4, 7)
    assert put.signature == "def put(self, item)"
    assert (box.doc, put.doc, free.doc) == ("Holds things.", "", "Free")
    assert put.refs == ("check",) and inner.refs == ("helper",)


def test_a_spec_whose_grammar_is_missing_yields_nothing() -> None:
    missing = Spec(lambda path: None, SPEC.rules, SPEC.refs, SPEC.module)
    assert symbols(missing, "m.py", SOURCE) == ()


def test_refs_go_to_the_innermost_span() -> None:
    spans = [(0, 100), (10, 20), (30, 40)]
    sites = [(5, "a"), (15, "b"), (35, "c"), (50, "d"), (150, "e"), (16, "if")]
    assert owned_refs(spans, sites, frozenset({"if"})) == [("a", "d"), ("b",), ("c",)]


def test_targets_go_to_the_innermost_span_only_when_every_use_is_spelled() -> None:
    spans = [(0, 100), (10, 20)]
    sites = [(5, "m"), (15, "m"), (50, "m"), (60, "n")]
    spelled = [(5, "m", "a.C.m"), (15, "m", "a.D.m"), (60, "n", "a.C.n")]
    # the outer span's m at 50 has no spelling, so its m stays unqualified
    assert owned_targets(spans, sites, spelled) == [(("n", "a.C.n"),), (("m", "a.D.m"),)]
