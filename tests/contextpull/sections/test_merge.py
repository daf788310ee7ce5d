from repoctx.contextpull.sections.blocks import Block
from repoctx.contextpull.sections.merge import Draft, merge_fragments


def _draft(path: str, *texts: str, heading: bool = False) -> Draft:
    kind = "heading" if heading else "prose"
    return Draft(path, 1, tuple(Block(kind, t, 1, 1, 1, t) for t in texts))


def test_heading_only_fragments_chain_forward() -> None:
    drafts = [_draft("T", "# T", heading=True), _draft("T > S", "## S", heading=True),
              _draft("T > S", "| a |\n|---|\n| 1 |" + " " * 30)]  # fmt: skip
    merged = merge_fragments(drafts, 2000)
    assert len(merged) == 1
    assert merged[0].heading_path == "T > S"
    assert merged[0].text.startswith("# T\n\n## S\n\n| a |")


def test_short_fragment_merges_backward_or_forward_when_first() -> None:
    long = "x" * 100
    merged = merge_fragments([_draft("A", long), _draft("B", "tiny")], 2000)
    assert [(d.heading_path, d.text) for d in merged] == [("A", long + "\n\ntiny")]
    merged = merge_fragments([_draft("A", "tiny"), _draft("B", long)], 2000)
    assert [(d.heading_path, d.text) for d in merged] == [("B", "tiny\n\n" + long)]


def test_merge_not_made_past_limit() -> None:
    full = "y" * 1999
    merged = merge_fragments([_draft("A", full), _draft("B", "tiny")], 2000)
    assert [d.heading_path for d in merged] == ["A", "B"]
