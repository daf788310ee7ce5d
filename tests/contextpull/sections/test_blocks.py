from repoctx.contextpull.sections.blocks import heading_of, parse_blocks, section_kind

DOC = """# Title

Intro line one
line two

```python
# not a heading
x = 1
```

| a | b |
|---|---|
| 1 | 2 |
##### Deep heading"""


def test_parse_blocks_kinds_and_spans() -> None:
    blocks = parse_blocks(DOC.split("\n"))
    assert [b.kind for b in blocks] == ["heading", "prose", "code", "table", "heading"]
    assert blocks[1].text == "Intro line one\nline two"
    assert (blocks[2].start_line, blocks[2].end_line) == (6, 9)
    assert "# not a heading" in blocks[2].text
    assert blocks[3].text.count("\n") == 2 and blocks[4].level == 5


def test_heading_of_strips_closing_hashes() -> None:
    assert heading_of("## Refund window ##") == (2, "Refund window")
    assert heading_of("#hashtag") is None


def test_section_kind_ignores_headings() -> None:
    blocks = parse_blocks(DOC.split("\n"))
    assert section_kind([blocks[0], blocks[3]]) == "table"
    assert section_kind([blocks[0], blocks[2]]) == "code"
    assert section_kind(blocks[:4]) == "mixed"
    assert section_kind(blocks[:2]) == "prose"
