from repoctx.extract.grammar import encode, installed, load, parse


def test_a_missing_grammar_package_loads_as_none() -> None:
    assert load("tree_sitter_no_such_language") is None
    assert not installed("tree_sitter_no_such_language")
    assert load("tree_sitter_python", "no_such_function") is None


def test_an_installed_grammar_parses() -> None:
    language = load("tree_sitter_python")
    assert language is not None and installed("tree_sitter_python")
    root = parse(language, encode("def f():\r\n    pass\r\n"))
    assert root.children[0].type == "function_definition"
    assert root.children[0].end_point[0] == 1


def test_encode_never_raises() -> None:
    assert encode("a\rb\ud800") == b"a\nb?"
