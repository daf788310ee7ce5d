from repoctx.contextpull.sections.documents import Section, Sectioned
from repoctx.contextpull.sections.summary import clip, summarise


def _doc(kind: str, *texts: str, fm: dict[str, str] | None = None) -> Sectioned:
    sections = tuple(Section("T", 1, "prose", t, symbol=f"S{i}") for i, t in enumerate(texts))
    return Sectioned("T", kind, sections, fm or {})


def test_first_prose_sentence_skips_headings_and_tables() -> None:
    doc = _doc("markdown", "# T\n\n| a |\n|---|\n| 1 |\n\nFirst sentence. Second one.")
    assert summarise(doc) == ("First sentence.", "extractive")


def test_front_matter_summary_wins() -> None:
    assert summarise(_doc("markdown", "x.", fm={"description": "Desc"})) == ("Desc", "front-matter")


def test_code_summary_lists_definitions_and_empty_is_none() -> None:
    assert summarise(_doc("code", "a", "b")) == ("Defines S0, S1", "extractive")
    assert summarise(_doc("markdown")) == (None, None)


def test_clip_cuts_at_word() -> None:
    clipped = clip("word " * 100, 30)
    assert clipped.endswith("…") and len(clipped) <= 30
