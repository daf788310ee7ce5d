from repoctx.contextpull.documents import SourceDocument, decode_text, document_kind, language_for


def test_document_kinds() -> None:
    assert document_kind(SourceDocument("a.MD", b"")) == "markdown"
    assert document_kind(SourceDocument("a.markdown", b"")) == "markdown"
    assert document_kind(SourceDocument("a.json", b"")) == "json"
    assert document_kind(SourceDocument("a.txt", b"")) == "text"
    assert document_kind(SourceDocument("a.yaml", b"")) == "other"
    assert document_kind(SourceDocument("a.py", b"")) == "code"
    assert document_kind(SourceDocument("a.md", b"", definitions=())) == "code"
    assert document_kind(SourceDocument("Makefile", b"", language="rust")) == "code"


def test_language_and_decoding() -> None:
    assert language_for("x/y.ts") == "typescript" and language_for("x.unknown") is None
    assert decode_text(b"\xef\xbb\xbfa\r\nb\rc\xff") == "a\nb\nc\ufffd"
