import hashlib

from repoctx.contextpull.sections.documents import SourceDocument
from repoctx.contextpull.write.records import prepare


def test_prepare_fills_rows() -> None:
    data = b"# Title\n\nSome body text that is long enough to be a section."
    rows = prepare(SourceDocument("a.md", data), 2000, "2024-01-01T00:00:00Z")
    assert rows.sha256 == hashlib.sha256(data).hexdigest() and rows.size == len(data)
    assert rows.title == "Title" and rows.kind == "markdown"
    assert rows.summary == "Some body text that is long enough to be a section."
    assert rows.sections[0].tokens is None and rows.tokens is None and not rows.reused
    counted = SourceDocument("a.md", data, tokens=12)  # a count is the caller's, never ours
    assert prepare(counted, 2000, "2024-01-01T00:00:00Z").tokens == 12
