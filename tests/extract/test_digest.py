"""extract/digest: a definition's own text, normalised for position, digested."""

import pytest

from repoctx.extract.digest import annotated_start, definition_digests

SOURCE = '''"""A module."""

import os


@cache
@route(
    "/x",
    methods=["GET"],
)
def price(x):
    return x * 2


class Cart:
    """A cart."""

    LIMIT = 3

    @property
    def total(self):
        return 1
'''
SPANS = {"m.price": (11, 12), "m.Cart": (15, 22), "m.Cart.LIMIT": (18, 18),
         "m.Cart.total": (21, 22)}


def digests_of(text, spans=SPANS):
    return definition_digests(text, spans)


def shifted(text, lines, spans=SPANS):
    """``text`` with ``lines`` new lines on top, and the spans moved with it."""
    return "\n" * lines + text, {fq: (a + lines, b + lines) for fq, (a, b) in spans.items()}


def test_a_digest_is_sixteen_hex_characters_per_name():
    got = digests_of(SOURCE)
    assert set(got) == set(SPANS)
    assert all(len(d) == 16 and int(d, 16) >= 0 for d in got.values())
    assert len(set(got.values())) == len(got)


def test_moving_a_definition_down_changes_nothing():
    assert definition_digests(*shifted(SOURCE, 3)) == digests_of(SOURCE)
    commented = "# a new comment\n" + SOURCE
    assert definition_digests(commented, shifted(SOURCE, 1)[1]) == digests_of(SOURCE)


def test_a_body_edit_changes_that_definition_only():
    before, after = digests_of(SOURCE), digests_of(SOURCE.replace("x * 2", "x * 3"))
    assert {fq for fq in SPANS if before[fq] != after[fq]} == {"m.price"}


def test_a_method_edit_is_not_its_class_edit():
    before, after = digests_of(SOURCE), digests_of(SOURCE.replace("return 1", "return 2"))
    assert {fq for fq in SPANS if before[fq] != after[fq]} == {"m.Cart.total"}


def test_removing_a_method_leaves_its_class_as_it_was():
    lines = SOURCE.splitlines(keepends=True)
    without = "".join(lines[:19])  # the blank line, decorator and method gone
    spans = {"m.price": (11, 12), "m.Cart": (15, 18), "m.Cart.LIMIT": (18, 18)}
    assert definition_digests(without, spans)["m.Cart"] == digests_of(SOURCE)["m.Cart"]


def test_decorators_are_part_of_the_definition():
    before = digests_of(SOURCE)
    assert digests_of(SOURCE.replace("@cache", "@lru_cache"))["m.price"] != before["m.price"]
    assert digests_of(SOURCE.replace('"GET"', '"POST"'))["m.price"] != before["m.price"]
    assert digests_of(SOURCE.replace("@property", "@cached"))["m.Cart.total"] != before[
        "m.Cart.total"]
    # ...and a method's decorator is the method's, not its class's
    assert digests_of(SOURCE.replace("@property", "@cached"))["m.Cart"] == before["m.Cart"]


def test_whitespace_normalisation():
    before = digests_of(SOURCE)
    trailing = SOURCE.replace("return x * 2", "return x * 2   ")
    assert digests_of(trailing) == before
    blank = SOURCE.replace("def price(x):\n", "def price(x):\n\n")
    assert digests_of(blank, {**SPANS, "m.price": (11, 13)})["m.price"] == before["m.price"]
    relative = SOURCE.replace("    return x * 2", "        return x * 2")
    assert digests_of(relative)["m.price"] != before["m.price"]


def test_a_whole_block_reindented_is_not_a_change():
    indented = "if True:\n" + "".join(f"    {line}" if line.strip() else line
                                       for line in SOURCE.splitlines(keepends=True))
    assert definition_digests(indented, shifted(SOURCE, 1)[1]) == digests_of(SOURCE)


@pytest.mark.parametrize(("above", "first"), [
    (["@a", "@b(", "  1,", ")"], 1),  # decorators, one spanning lines
    (["#[derive(Debug)]", "#[cfg(test)]"], 1),  # Rust attributes
    (["[Fact]", "[Trait(\"k\", \"v\")]"], 1),  # C# attributes
    (["x = f(", "  1)", "@a"], 3),  # a statement above is not an annotation
    (["@a", "", "@b"], 3),  # a blank line ends them
    (["# comment", "@a"], 2),
    (["@a(", "  1"], 3),  # never closed: not whole annotations
    ([], 1),
])
def test_annotated_start(above, first):
    lines = [*above, "def f():", "    pass"]
    assert annotated_start(lines, len(above) + 1) == first


def test_bad_spans_never_raise():
    got = definition_digests("def f():\n    pass\n", {"f": (1, 99), "g": (50, 60), "h": (0, 0),
                                                     "same": (1, 99)})
    assert got["f"] == got["same"]  # identical spans share their lines
    assert got["g"] == got["h"] == definition_digests("", {"e": (1, 1)})["e"]
    assert definition_digests("", {}) == {}
