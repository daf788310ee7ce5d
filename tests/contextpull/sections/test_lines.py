from hypothesis import given
from hypothesis import strategies as st

from repoctx.contextpull.sections.lines import Lines, line_blocks


def _lines(lines: list[str]) -> Lines:
    return Lines("\n".join(lines))


def test_line_blocks_trim_blank_edges_and_respect_limit() -> None:
    lines = _lines(["", "a" * 30, "b" * 30, "c" * 30, ""])
    blocks = line_blocks(lines, 1, 5, 62, kind="code")
    assert [(b.start_line, b.end_line) for b in blocks] == [(2, 3), (4, 4)]


def test_overlong_line_is_cut() -> None:
    blocks = line_blocks(_lines(["x" * 250]), 1, 1, 100, kind="code")
    assert [len(b.text) for b in blocks] == [100, 100, 50]
    assert all(b.start_line == 1 for b in blocks)


def test_overlap_shares_lines() -> None:
    lines = _lines([f"{i:03d}" for i in range(10)])
    blocks = line_blocks(lines, 1, 10, 15, kind="prose", overlap=1)
    assert blocks[0].end_line == blocks[1].start_line
    assert blocks[-1].end_line == 10


def test_spans_are_slices_of_the_text() -> None:
    lines = Lines("a\n\nbc\n")
    assert len(lines) == 4 and lines.span(1, 3) == "a\n\nbc" and lines.span(3, 4) == "bc\n"
    assert lines.span(2, 1) == "" and lines.ends == [2, 3, 6, 7]


def _reference(lines: list[str], start: int, end: int, limit: int, overlap: int) -> list:
    """The per-line greedy grouping the bisect must reproduce."""
    while start <= end and not lines[start - 1].strip():
        start += 1
    while end >= start and not lines[end - 1].strip():
        end -= 1
    out, line = [], start
    while line <= end:
        text = lines[line - 1]
        if len(text) > limit:
            out += [(text[i : i + limit], line, line) for i in range(0, len(text), limit)]
            line += 1
            continue
        last = line
        while last < end and len(text) + 1 + len(lines[last]) <= limit:
            text += "\n" + lines[last]
            last += 1
        out.append((text.rstrip(), line, last))
        shared = min(overlap, (last - line + 1) // 2)
        line = last + 1 - shared if last < end else last + 1
    return [o for o in out if o[0].strip()]


@given(st.lists(st.text(alphabet=" ab\t", max_size=12), min_size=1, max_size=30),
       st.integers(1, 40), st.integers(0, 3), st.data())  # fmt: skip
def test_groups_match_the_per_line_reference(lines: list[str], limit: int, overlap: int,
                                             data: st.DataObject) -> None:  # fmt: skip
    start = data.draw(st.integers(1, len(lines)))
    end = data.draw(st.integers(start - 1, len(lines)))
    blocks = line_blocks(_lines(lines), start, end, limit, kind="code", overlap=overlap)
    expected = _reference(lines, start, end, limit, overlap)
    assert [(b.text, b.start_line, b.end_line) for b in blocks] == expected
