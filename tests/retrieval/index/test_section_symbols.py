"""The symbols a document's exported code sections declare: exact spans, placed by line."""

from repoctx.reconcile import Declaration
from repoctx.retrieval.index.section_symbols import (
    SectionSpan,
    document_symbols,
    document_text,
    extracted,
    fq_name,
    line_numbers,
    place,
    qualname_of,
)

SOURCE = '''import typing


class Cart:
    """A cart.

    Example::

        class NotAClass(Cart):
            def nor_a_method(self): ...
    """

    def add(self, x):
        def inner():
            return x
        return inner

    @typing.overload
    def total(self, n: int) -> int: ...
    @typing.overload
    def total(self, n: str) -> str: ...
    def total(self, n):
        return n


MAX = 3
'''


def _sections(source: str, cuts: list[int]) -> list[SectionSpan]:
    """``source`` cut before each line of ``cuts`` into sections, blank edges dropped."""
    lines = source.split("\n")
    bounds = [1, *cuts, len(lines) + 1]
    out = []
    for index, (start, stop) in enumerate(zip(bounds, bounds[1:], strict=False)):
        block = lines[start - 1:stop - 1]
        while block and not block[-1].strip():
            block.pop()
            stop -= 1
        out.append(SectionSpan(index + 1, "\n".join(block), start, stop - 1))
    return out


def test_spans_are_whole_definitions_and_strings_declare_nothing():
    sections = _sections(SOURCE, [13, 18])  # Cart's head, add, total + MAX
    found = {f.qualname: (f.kind, f.start_line, f.end_line)
             for f in document_symbols("shop/cart.py", extracted("shop/cart.py", sections))}
    assert found == {"Cart": ("class", 4, 23), "Cart.add": ("method", 13, 16),
                     "Cart.total": ("method", 22, 23), "MAX": ("variable", 26, 26)}


def test_each_symbol_is_placed_in_the_section_holding_its_first_line():
    sections = _sections(SOURCE, [13, 18])
    placed = place(document_symbols("shop/cart.py", extracted("shop/cart.py", sections)),
                   sections)
    assert {rowid: [f.qualname for f in found] for rowid, found in placed.items()} == {
        1: ["Cart"], 2: ["Cart.add"], 3: ["Cart.total", "MAX"]}


def test_document_text_puts_lines_back_on_their_numbers():
    sections = [SectionSpan(1, "a = 1", 2, 2), SectionSpan(2, "def f():\n    pass", 5, 6)]
    assert document_text(sections) == "\na = 1\n\n\ndef f():\n    pass"


def test_stored_declarations_leave_function_locals_out():
    decl = Declaration("function", "def f()", "", 1, 9, (), False)
    local = Declaration("function", "def g()", "", 2, 3, (), False)
    nested = Declaration("class", "class K", "", 4, 5, (), False)
    found = document_symbols("m.py", {"m.f": decl, "m.f.g": local, "m.f.K": nested})
    assert [f.fq for f in found] == ["m.f"]


def test_fq_name_follows_the_module_path():
    assert fq_name("shop/cart.py", "Cart.add") == "shop.cart.Cart.add"
    assert fq_name("shop/__init__.py", "VERSION") == "shop.VERSION"
    assert qualname_of("shop/cart.py", "shop.cart.Cart.add") == "Cart.add"
    assert qualname_of("shop/cart.py", "other.Cart") == "other.Cart"


def test_a_glued_head_fragment_counts_the_definition_from_the_end():
    # Lines 1-3 ('"""Doc."""', '', 'X = 1') glued to a class at 6-7; blank lines 4-5
    # became the one blank line joining the blocks.
    text = '"""Doc."""\n\nX = 1\n\nclass A:\n    pass'
    assert line_numbers(text, 1, 7) == [1, 2, 3, 4, 6, 7]
    found = {f.qualname: (f.start_line, f.end_line)
             for f in document_symbols("m.py", extracted("m.py", [SectionSpan(1, text, 1, 7)]))}
    assert found == {"X": (3, 3), "A": (6, 7)}


def test_a_glued_tail_fragment_keeps_the_definition_counted_from_the_start():
    text = "def main():\n    return run(1, 2, 3)\n\nif x:\n    main()"
    assert line_numbers(text, 10, 16)[:2] == [10, 11]
    assert line_numbers(text, 10, 16)[-1] == 16


def test_an_unglued_section_counts_lines_one_to_one():
    assert line_numbers("a\nb\n\nc", 5, 8) == [5, 6, 7, 8]
    assert line_numbers("a\nb", 5, None) == [5, 6]
