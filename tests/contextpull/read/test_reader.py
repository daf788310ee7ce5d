"""read / neighbours / index against raw stores, including older-writer table runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from repoctx.contextpull import Reader
from repoctx.errors import ToolError

HEADER = "| code | meaning |\n|---|---|"
DOCS = {
    "t.md": [
        ("T", "prose", "# T\n\nIntro paragraph."),
        ("T > Data", "table", f"## Data\n\n{HEADER}\n| 1 | one |"),
        ("T > Data", "table", "| 2 | two |"),  # older writer: no header
        ("T > Data", "table", f"{HEADER}\n| 3 | three |"),  # header already present
        ("T > After", "prose", "## After\n\nDone."),
    ],
    "u.md": [("U", "prose", "other document")],
}


@pytest.fixture
def reader(raw_store: Callable[..., Path]) -> Reader:
    with Reader(raw_store(DOCS)) as r:
        yield r


def test_read_shape_and_chain(reader: Reader) -> None:
    result = reader.read("t.md#0")
    assert result == {"id": "t.md#0", "doc": "t.md", "heading_path": "T", "kind": "prose",
                      "text": "# T\n\nIntro paragraph.", "prev": None, "next": "t.md#1",
                      "context": []}  # fmt: skip


def test_continuation_without_header_gets_it_prepended(reader: Reader) -> None:
    assert reader.read("t.md#2")["text"] == f"{HEADER}\n| 2 | two |"


def test_header_never_duplicated(reader: Reader) -> None:
    assert reader.read("t.md#3")["text"] == f"{HEADER}\n| 3 | three |"
    assert reader.read("t.md#1")["text"].count("| code |") == 1


def test_context_in_ordinal_order_within_document(reader: Reader) -> None:
    result = reader.read("t.md#3", context=2)
    assert [s["id"] for s in result["context"]] == ["t.md#1", "t.md#2", "t.md#4"]
    assert all(s["context"] is True for s in result["context"])
    assert result["context"][1]["text"].startswith(HEADER)
    assert [s["id"] for s in reader.read("u.md#0", context=5)["context"]] == []


@pytest.mark.parametrize("bad", ["../../etc/passwd#0", "t.md#99", "t.md", "/etc/passwd", ""])
def test_unknown_ids_are_tool_errors(reader: Reader, bad: str) -> None:
    with pytest.raises(ToolError, match="unknown section id"):
        reader.read(bad)
    with pytest.raises(ToolError):
        reader.neighbours(bad)


def test_neighbours_with_table_header(reader: Reader) -> None:
    result = reader.neighbours("t.md#2", before=1, after=1)
    assert [s["id"] for s in result["sections"]] == ["t.md#1", "t.md#2", "t.md#3"]
    assert result["header"]["id"] == "t.md#1"
    assert reader.neighbours("t.md#1")["header"] is None
    assert reader.neighbours("t.md#3")["header"]["id"] == "t.md#1"


def test_neighbours_stop_at_document_boundaries(reader: Reader) -> None:
    result = reader.neighbours("t.md#4", before=0, after=5)
    assert [s["id"] for s in result["sections"]] == ["t.md#4"]
    assert [s["id"] for s in reader.neighbours("u.md#0", 5, 5)["sections"]] == ["u.md#0"]


def test_index_prefix_format(reader: Reader) -> None:
    text = reader.index("t")["text"]
    assert text.split("\n") == [
        "ContextPull index · t · 1 documents · 5 sections",
        "t.md" + " " * 26 + "  t.md  (5)",
    ]
    assert reader.index("zzz")["text"] == "ContextPull index · zzz · 0 documents · 0 sections"
    assert reader.index()["text"] == "ContextPull index · raw"


def test_argument_checks(reader: Reader) -> None:
    with pytest.raises(ToolError, match="mode"):
        reader.search("x", mode="semantic")
    with pytest.raises(ToolError, match="limit"):
        reader.grep("x", limit=0)
