from repoctx.contextpull.read.section_rows import table_header


def test_table_header_found_after_heading() -> None:
    text = "## Data\n\n| a | b |\n|:--|--:|\n| 1 | 2 |"
    assert table_header(text) == ("| a | b |", "|:--|--:|")
    assert table_header("no table here") is None
