import hashlib

from repoctx.contextpull.sections.documents import Section
from repoctx.contextpull.write.encoded import encode
from repoctx.contextpull.write.records import DocumentRows, EmbeddingRow

SECTIONS = (
    Section("a.md > One", 2, "prose", "## One\n\nSee `--flag`.", 1, 3, None, None),
    Section("a.md > Two", 2, "code", "def f(): ...", 5, 5, None, "f"),
)
ROWS = DocumentRows("a.md", "0" * 64, 9, "A", "Sum.", "extractive", "markdown", "t", SECTIONS,
                    "python", 12, (EmbeddingRow("a.md#1", "toy", 1, b"\0\0\0\0"),))  # fmt: skip


def test_rows_follow_insert_column_order_without_ids() -> None:
    doc = encode(ROWS)
    assert doc.document == ("a.md", "A", "Sum.", "extractive", "0" * 64, 9, "markdown", 2, "t")
    assert doc.side_document == ("python", 12, None) and doc.n_sections == 2
    text = SECTIONS[0].text
    digest = hashlib.sha256(text.encode()).hexdigest()
    assert doc.sections[0] == (
        "a.md#0", 0, "a.md > One", 2, "prose", text, len(text), digest, None, "a.md#1"
    )  # fmt: skip
    assert doc.sections[1][-2:] == ("a.md#0", None)
    assert doc.fts[0] == ("a.md#0", "a.md > One", "## One\n\nSee `flag`")
    assert doc.side_sections[1] == ("a.md#1", 5, 5, None, "f")
    assert doc.embeddings == [("a.md#1", "toy", 1, b"\0\0\0\0")]


def test_a_document_without_sections() -> None:
    doc = encode(DocumentRows("e.txt", "0" * 64, 0, "e", None, None, "text", "t", ()))
    assert doc.sections == doc.fts == doc.side_sections == [] and doc.document[7] == 0
