from repoctx.contextpull.sections.othertext import section_other_text

YAML = "\n\n".join(f"key{i}:\n  value: {'v' * 50}\n  other: {i}" for i in range(60))


def test_blank_line_blocks_are_packed_under_limit() -> None:
    doc = section_other_text("conf/app.yaml", YAML, 2000)
    assert doc.kind == "other" and doc.title == "app.yaml"
    assert len(doc.sections) > 1
    assert all(len(s.text) <= 2000 and s.heading_path == "conf/app.yaml" for s in doc.sections)
    assert all(s.text.startswith("key") for s in doc.sections)  # cut between blocks


def test_one_huge_block_falls_back_to_overlapping_line_groups() -> None:
    log = "\n".join(f"2024-01-01 12:00:{i:02d} INFO event number {i}" for i in range(300))
    doc = section_other_text("app.log", log, 2000)
    assert len(doc.sections) > 1
    first, second = doc.sections[0], doc.sections[1]
    assert second.start_line is not None and first.end_line is not None
    assert second.start_line <= first.end_line  # overlap
    assert first.text.split("\n")[-1] in second.text
