from repoctx.contextpull.sections.code import section_code
from repoctx.contextpull.sections.documents import Definition


def _method(name: str, start: int, body_lines: int) -> tuple[list[str], Definition]:
    lines = [f"    def {name}(self) -> None:"] + [
        f"        x = '{name}' * {i}" for i in range(body_lines)
    ]
    return lines, Definition(name, "method", start, start + len(lines) - 1)


def _source() -> tuple[str, tuple[Definition, ...]]:
    lines = ["import os", "import sys", "", "CONSTANT = 1", "", "", "def small() -> int:",
             "    return 1", "", "", "class Big:", '    """A big class."""', ""]  # fmt: skip
    methods = []
    for name in ("alpha", "beta", "gamma"):
        body, definition = _method(name, len(lines) + 1, 40)
        lines += body + [""]
        methods.append(definition)
    big = Definition("Big", "class", 11, len(lines) - 1, tuple(methods))
    small = Definition("small", "function", 7, 8)
    return "\n".join(lines), (big, small)


def test_code_sections_by_definition_and_split_class() -> None:
    text, definitions = _source()
    doc = section_code("pkg/mod.py", text, definitions, 2000)
    paths = [s.heading_path for s in doc.sections]
    assert paths == [
        "pkg/mod.py > small",
        "pkg/mod.py > Big > alpha",
        "pkg/mod.py > Big > beta",
        "pkg/mod.py > Big > gamma",
    ]
    assert doc.kind == "code" and {s.kind for s in doc.sections} == {"code"}
    # short module code and the short class head glue forward; definitions keep symbols
    assert doc.sections[0].text.startswith("import os\nimport sys\n\nCONSTANT = 1\n\ndef small")
    assert doc.sections[0].symbol == "small"
    assert (doc.sections[0].start_line, doc.sections[0].end_line) == (1, 8)
    assert doc.sections[1].symbol == "Big.alpha"
    assert doc.sections[1].text.startswith('class Big:\n    """A big class."""\n\n    def alpha')
    assert doc.sections[2].text.startswith("    def beta(self)")
    assert all(len(s.text) <= 2000 for s in doc.sections)


def test_long_head_and_module_code_keep_own_sections() -> None:
    head = ['    """' + "doc " * 20 + '"""']
    lines = ["import os  # the module needs os for paths", "", "class C:", *head, ""]
    methods = []
    for name in ("m", "n"):
        start = len(lines) + 1
        lines += [f"    def {name}(self):"] + ["        pass  # " + "z" * 60] * 20
        methods.append(Definition(name, "method", start, len(lines)))
    cls = Definition("C", "class", 3, len(lines), tuple(methods))
    doc = section_code("c.py", "\n".join(lines), (cls,), 2000)
    paths = [s.heading_path for s in doc.sections]
    assert paths == ["c.py", "c.py > C", "c.py > C > m", "c.py > C > n"]
    assert [s.level for s in doc.sections] == [0, 1, 2, 2]


def test_class_under_limit_stays_whole() -> None:
    text = "class A:\n    def f(self):\n        return 1\n"
    definition = Definition("A", "class", 1, 3, (Definition("f", "method", 2, 3),))
    doc = section_code("a.py", text, (definition,), 2000)
    assert [(s.heading_path, s.text) for s in doc.sections] == [("a.py > A", text.rstrip())]


def test_no_definitions_gives_line_groups() -> None:
    text = "\n".join(f"line_{i} = {i}" for i in range(400))
    doc = section_code("x.py", text, (), 2000)
    assert len(doc.sections) > 1
    assert all(s.heading_path == "x.py" and len(s.text) <= 2000 for s in doc.sections)
    assert "\n".join(s.text for s in doc.sections) == text
