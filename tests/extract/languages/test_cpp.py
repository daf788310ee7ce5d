from repoctx.extract import extract, language_of
from repoctx.extract.languages.cpp import LANGUAGE


def test_cpp_is_registered() -> None:
    assert LANGUAGE.name == language_of("x.cpp") == language_of("x.hpp") == "cpp"
    assert LANGUAGE.available() and LANGUAGE.separator == "::"
    assert [s.fq_name for s in extract("x.cc", "namespace a { int f() { return 1; } }")] \
        == ["a::f"]
