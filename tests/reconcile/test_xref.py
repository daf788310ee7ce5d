"""reconcile/xref: snake forms, the subjects a test's name covers, a symbol's edges."""

import pytest

from repoctx.reconcile import xref  # the module: its test_subjects must not be collected
from repoctx.reconcile.nodes.symbol_record import Declaration
from repoctx.reconcile.nodes.xref_record import DEPENDENTS, TESTS


@pytest.mark.parametrize("name, want", [
    ("FooBar", "foo_bar"), ("foo_bar", "foo_bar"), ("Foo", "foo"),
    ("HTTPResponse", "http_response"), ("Model2Form", "model2_form"), ("getURL", "get_url"),
])
def test_snake(name, want):
    assert xref.snake(name) == want


@pytest.mark.parametrize("name, kind, want", [
    ("TestFoo", "class", {"Foo"}),
    ("Test_Foo", "class", {"Foo"}),
    ("FooTest", "class", {"Foo"}),
    ("FooTests", "class", {"Foo"}),
    ("Test", "class", set()),
    ("Helper", "class", set()),
    ("test_foo_bar", "function", {"foo_bar"}),
    ("test_foo_bar", "method", {"foo_bar"}),
    ("test_", "function", set()),
    ("helper", "function", set()),
    ("TestFoo", "function", set()),
])
def test_test_subjects(name, kind, want):
    assert xref.test_subjects(name, kind) == want


def test_a_class_named_tests_covers_no_subject():
    assert xref.test_subjects("Tests", "class") == set()


def decl(refs, *, kind="function", is_test=False):
    return Declaration(kind, "sig", "", 1, 2, tuple(refs), is_test)


def test_a_plain_symbol_contributes_dependents_edges_only():
    got = xref.edges("pkg.mod.run", {"pkg/mod.py": decl(["helper", "Model"])})
    assert got == {(DEPENDENTS, "helper"), (DEPENDENTS, "Model")}


def test_a_test_symbol_also_covers_its_refs_and_its_named_subject():
    got = xref.edges("tests.test_cart.TestCart",
                     {"tests/test_cart.py": decl(["checkout"], kind="class", is_test=True)})
    assert got == {(DEPENDENTS, "checkout"), (TESTS, "checkout"), (TESTS, "Cart")}


def test_edges_union_over_every_declaring_file():
    got = xref.edges("pkg.x.f", {"pkg/x.py": decl(["a"]), "pkg/x.pyi": decl(["b"])})
    assert got == {(DEPENDENTS, "a"), (DEPENDENTS, "b")}
    assert xref.edges("pkg.x.f", {}) == set()


def test_go_style_test_functions_cover_their_subjects():
    from repoctx.reconcile.xref import marked_test_subjects

    assert marked_test_subjects("TestStore_Get") == {"Store_Get", "Store", "Get"}
    assert marked_test_subjects("Testimony") == set() and marked_test_subjects("test_x") == set()


def test_a_qualified_reference_adds_an_edge_in_its_spellings_field():
    decl = Declaration("function", "def f()", "", 1, 2, ("url_for", "x"), False,
                       targets=(("url_for", "flask.helpers.url_for"),))
    assert xref.edges("app.f", {"app.py": decl}) == {
        (DEPENDENTS, "url_for"), (DEPENDENTS, "x"),
        ("to:flask.helpers.url_for", "url_for")}
