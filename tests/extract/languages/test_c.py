from repoctx.extract import imports_of, language_of
from repoctx.extract.languages.c import LANGUAGE


def test_c_is_registered_with_headers_and_includes() -> None:
    assert LANGUAGE.name == language_of("x.c") == language_of("x.h") == "c"
    assert LANGUAGE.available()
    assert [i.specifier for i in imports_of("x.c", '#include "a.h"\n')] == ["a.h"]
    assert LANGUAGE.qualname_parts is not None
    assert LANGUAGE.qualname_parts("x.h", "ns::Box::put") == ("ns", "Box", "put")
