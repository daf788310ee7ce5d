from repoctx.contextpull.sections.blocks import Block
from repoctx.contextpull.sections.split import pack_blocks, split_prose, split_table


def _table(rows: int) -> Block:
    lines = ["| id | value |", "|---|---|"] + [f"| {i} | {'v' * 40} |" for i in range(rows)]
    return Block("table", "\n".join(lines), 1, len(lines))


def test_prose_splits_at_sentences_within_budget() -> None:
    text = " ".join(f"Sentence number {i} is here." for i in range(200))
    pieces = split_prose(Block("prose", text, 1, 1), 2000, 2000)
    assert len(pieces) > 1
    assert all(len(p.text) <= 2000 and p.text.endswith(".") for p in pieces)
    assert " ".join(p.text for p in pieces) == text


def test_prose_without_sentences_splits_at_words() -> None:
    text = " ".join(["word"] * 1000)
    pieces = split_prose(Block("prose", text, 1, 1), 500, 500)
    assert all(len(p.text) <= 500 for p in pieces) and " ".join(p.text for p in pieces) == text


def test_table_parts_each_start_with_header_and_separator() -> None:
    parts = split_table(_table(100), 2000, 2000)
    assert len(parts) > 1
    for part in parts:
        assert part.text.startswith("| id | value |\n|---|---|\n| ")
        assert len(part.text) <= 2000
    rows = [line for p in parts for line in p.text.split("\n")[2:]]
    assert len(rows) == 100


def test_pack_never_splits_code_and_keeps_heading_first() -> None:
    heading = Block("heading", "## H", 1, 1, 2, "H")
    code = Block("code", "```\n" + "x\n" * 1500 + "```", 2, 1504)
    parts = pack_blocks([heading, code, Block("prose", "after", 1505, 1505)], 2000)
    assert [b.kind for b in parts[0]] == ["heading"]
    assert parts[1] == [code]
    assert parts[2][0].text == "after"


def test_pack_big_table_heading_stays_in_first_part_only() -> None:
    heading = Block("heading", "## Data", 1, 1, 2, "Data")
    parts = pack_blocks([heading, _table(100)], 2000)
    texts = ["\n\n".join(b.text for b in part) for part in parts]
    assert texts[0].startswith("## Data\n\n| id |")
    assert all(t.startswith("| id | value |") for t in texts[1:])
    assert all(len(t) <= 2000 for t in texts)
