import json

from repoctx.contextpull.sections.documents import Definition, SourceDocument
from repoctx.contextpull.sections.sectioning import section_document


def test_dispatch_by_kind() -> None:
    md = section_document(SourceDocument("a.md", b"# T\n\nbody text long enough here."), 2000)
    assert md.kind == "markdown" and md.title == "T"
    code = section_document(
        SourceDocument("a.txt", b"def f():\n    pass\n", (Definition("f", "function", 1, 2),)),
        2000,
    )
    assert code.kind == "code" and code.sections[0].heading_path == "a.txt > f"
    data = json.dumps({"k": "v"}).encode()
    assert section_document(SourceDocument("d.json", data), 2000).kind == "json"
    assert section_document(SourceDocument("c.toml", b"[a]\nb = 1\n"), 2000).kind == "other"


def test_invalid_json_is_sectioned_as_text() -> None:
    doc = section_document(SourceDocument("bad.json", b"Not Json\n\n{oops"), 2000)
    assert doc.kind == "text"
    assert doc.sections[0].heading_path == "Not Json"
