from pathlib import PurePosixPath

from repoctx.contextpull.sections.documents import (
    SourceDocument,
    decode_text,
    document_kind,
    language_for,
    suffix_of,
)


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


def test_suffix_of_matches_pathlib() -> None:
    for path in ("a/b.py", "b.tar.gz", ".bashrc", "a/.env.local", "x.", "d.x/y", "noext", "a/..b"):
        assert suffix_of(path) == PurePosixPath(path).suffix, path
