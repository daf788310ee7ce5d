import re

from repoctx.extract.declarations import (
    ancestors,
    dotted_suffix_parts,
    first_in_directory,
    scan_imports,
)

from .memory_files import MemoryFiles


def test_scan_imports_counts_lines() -> None:
    pattern = re.compile(r"^use (\w+);", re.M)
    found = scan_imports(pattern, "x\nuse a;\n\nuse b;\nuse ;\n")
    assert [(i.specifier, i.line) for i in found] == [("a", 2), ("b", 4)]


def test_paths_stay_inside_the_repository() -> None:
    files = MemoryFiles({"a/c.h": "", "a/b.h": "", "a/d/e.h": ""})
    assert first_in_directory(files, "a", (".h",)) == "a/b.h"
    assert first_in_directory(files, "../a", (".h",)) is None
    assert ancestors("a/b/c.h") == ["a/b", "a", ""]


def test_dotted_suffix_parts_drops_the_package_the_path_spells() -> None:
    assert dotted_suffix_parts("src/main/java/com/x/Foo.java", "com.x.Foo.run", ".") == \
        ("Foo", "run")
    assert dotted_suffix_parts("Foo.java", "com.x.Foo", ".") == ("com", "x", "Foo")
