from repoctx.contextpull.lines import line_blocks


def test_line_blocks_trim_blank_edges_and_respect_limit() -> None:
    lines = ["", "a" * 30, "b" * 30, "c" * 30, ""]
    blocks = line_blocks(lines, 1, 5, 62, kind="code")
    assert [(b.start_line, b.end_line) for b in blocks] == [(2, 3), (4, 4)]


def test_overlong_line_is_cut() -> None:
    blocks = line_blocks(["x" * 250], 1, 1, 100, kind="code")
    assert [len(b.text) for b in blocks] == [100, 100, 50]
    assert all(b.start_line == 1 for b in blocks)


def test_overlap_shares_lines() -> None:
    lines = [f"{i:03d}" for i in range(10)]
    blocks = line_blocks(lines, 1, 10, 15, kind="prose", overlap=1)
    assert blocks[0].end_line == blocks[1].start_line
    assert blocks[-1].end_line == 10
