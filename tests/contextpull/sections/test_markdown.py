from repoctx.contextpull.sections.markdown import (
    is_text_heading,
    section_markdown,
    section_plain_text,
    split_front_matter,
)

MD = """---
title: From Front Matter
summary: A short one.
---

Preamble text that is long enough to stand alone as a section.

# Heading One

Body of one, long enough to stay on its own as a section here.

## Two

### Three

Deep body text that is long enough to be its own section, surely.
"""


def test_front_matter_removed_with_blank_lines() -> None:
    fields, body = split_front_matter(MD.split("\n"))
    assert fields == {"title": "From Front Matter", "summary": "A short one."}
    assert MD.split("\n")[body].startswith("Preamble")


def test_sections_paths_levels_and_forward_merge() -> None:
    doc = section_markdown("docs/x.md", MD, 2000)
    assert doc.title == "From Front Matter"
    got = [(s.heading_path, s.level) for s in doc.sections]
    assert got == [("From Front Matter", 0), ("Heading One", 1), ("Heading One > Two > Three", 3)]
    assert doc.sections[2].text.startswith("## Two\n\n### Three\n\nDeep body")
    assert not doc.sections[2].text.endswith("\n")


def test_title_falls_back_to_h1_then_stem() -> None:
    assert section_markdown("a/b.md", "# Real Title\n\ntext", 2000).title == "Real Title"
    assert section_markdown("a/b.md", "just text here", 2000).title == "b"


def test_text_headings() -> None:
    assert is_text_heading("Release Notes") and is_text_heading("Notes of the Day")
    assert not is_text_heading("Release notes") and not is_text_heading("Known Issues.")
    doc = section_plain_text("n.txt", "Intro Line\n\nbody text.\n\nLast Line", 2000)
    assert [(s.heading_path, s.level) for s in doc.sections] == [("Intro Line", 2)]
    assert doc.sections[0].text == "Intro Line\n\nbody text.\n\nLast Line"
