from repoctx.extract.language import first_existing, inside, split_qualname

from .memory_files import MemoryFiles


def test_split_qualname_strips_the_module_and_splits_on_the_separator() -> None:
    assert split_qualname("pkg.m.C.f", "pkg.m") == ("C", "f")
    assert split_qualname("crate::a::T::f", "crate::a", "::") == ("T", "f")
    assert split_qualname("src/x.test.describe", "src/x.test") == ("describe",)
    assert split_qualname("other.C", "pkg.m") is None
    assert split_qualname("C.f", "") == ("C", "f")


def test_first_existing_normalises_and_stays_inside_the_repository() -> None:
    files = MemoryFiles(dict.fromkeys({"src/a.ts", "b/index.ts"}, ""))
    assert first_existing(files, ["src/x/../a.ts"]) == "src/a.ts"
    assert first_existing(files, ["b.ts", "b/index.ts"]) == "b/index.ts"
    assert first_existing(files, ["../src/a.ts", "/src/a.ts"]) is None


def test_inside_normalises_and_refuses_paths_out_of_the_repository() -> None:
    assert inside("a/./b/../c.h") == "a/c.h"
    assert inside("../x") is None and inside("/etc/x") is None and inside(".") is None
